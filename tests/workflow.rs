//! The sharded certification workflow, `.github/workflows/certify.yml`
//! (issue 26), read and run here as GitHub Actions would run it.
//!
//! The first test checks its shape: a fixed seed for every shard, a matrix
//! job whose runners each check one share and upload its JSON report, and a
//! merge job after all of them that downloads the reports and merges them.
//! The second runs the file: every job in the order its `needs` give, the
//! matrix expanded, each job in a fresh workspace (the checkout is the
//! repository's files linked in), each `run:` step through `bash` as
//! `shell: bash` does, `${{ ... }}` expressions substituted, `GITHUB_PATH`
//! honoured and artifacts kept in a temporary folder. `cargo` is a stand-in
//! that links the binaries this test was built with, so the steps run
//! unchanged and nothing is compiled twice; the games and perft depth are
//! turned down through kpe-check's environment variables (which the
//! workflow does not set) to keep the run to seconds. The merged report
//! must be the one of the unsharded run with the same seed.
//!
//! The runner knows only what the workflow uses: an expression, action,
//! key or `if:` it does not know fails the test, so a change to the
//! workflow is either run here or named.
//!
//! Issue 44: the composite action engine repositories use, `action.yml`,
//! runs the same way, step by step (`uses: ./` in certify.yml's `action`
//! job, `uses: OWNER/kpe@vVERSION` in the README's workflow), with its
//! inputs, `steps.*.outputs` through GITHUB_OUTPUT, and the Actions cache
//! as a folder per key; the `cargo` stand-in also "installs". The README's
//! workflow is run against an engine in a repository of its own: a first
//! run builds, a second takes the cache, shares agree on a seed, and a
//! diverging engine fails the step with its verdict.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::{Value, json};

const WORKFLOW: &str = ".github/workflows/certify.yml";
const ACTION: &str = "action.yml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------
// The workflow file, as plain data
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Workflow {
    #[allow(dead_code)]
    name: String,
    on: serde_yaml::Value,
    #[serde(default)]
    env: BTreeMap<String, Scalar>,
    #[serde(default)]
    defaults: Option<Defaults>,
    jobs: BTreeMap<String, Job>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    run: RunDefaults,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunDefaults {
    shell: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Job {
    #[allow(dead_code)]
    name: Option<String>,
    runs_on: String,
    #[serde(default)]
    needs: Needs,
    #[allow(dead_code)]
    timeout_minutes: Option<u32>,
    strategy: Option<Strategy>,
    #[serde(default)]
    env: BTreeMap<String, Scalar>,
    steps: Vec<Step>,
}

/// `needs: job` or `needs: [a, b]`.
#[derive(Default, Deserialize)]
#[serde(untagged)]
enum Needs {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl Needs {
    fn list(&self) -> Vec<String> {
        match self {
            Needs::None => Vec::new(),
            Needs::One(job) => vec![job.clone()],
            Needs::Many(jobs) => jobs.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Strategy {
    fail_fast: Option<bool>,
    matrix: BTreeMap<String, Vec<Scalar>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    name: Option<String>,
    #[allow(dead_code)]
    id: Option<String>,
    uses: Option<String>,
    #[serde(default)]
    with: BTreeMap<String, Scalar>,
    run: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, Scalar>,
    #[serde(rename = "if")]
    condition: Option<String>,
    /// Required on a composite action's `run:` steps.
    shell: Option<String>,
}

impl Step {
    fn label(&self) -> String {
        self.name
            .clone()
            .or_else(|| self.uses.clone())
            .or_else(|| self.run.clone())
            .unwrap_or_default()
    }
}

/// A YAML scalar as the text Actions sees: `4`, `true` and `"4"` alike.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Number(serde_yaml::Number),
    Bool(bool),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Text(t) => t.clone(),
            Scalar::Number(n) => n.to_string(),
            Scalar::Bool(b) => b.to_string(),
        }
    }
}

/// `action.yml`: the composite action engine repositories use.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Action {
    #[allow(dead_code)]
    name: String,
    #[allow(dead_code)]
    description: String,
    #[allow(dead_code)]
    author: Option<String>,
    #[allow(dead_code)]
    branding: Option<serde_yaml::Value>,
    inputs: BTreeMap<String, Input>,
    outputs: BTreeMap<String, Output>,
    runs: Runs,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    #[allow(dead_code)]
    description: String,
    #[serde(default)]
    required: bool,
    default: Option<Scalar>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Output {
    #[allow(dead_code)]
    description: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Runs {
    using: String,
    steps: Vec<Step>,
}

fn action_file() -> Action {
    let path = root().join(ACTION);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{ACTION}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{ACTION}: {e}"))
}

fn workflow() -> Workflow {
    let path = root().join(WORKFLOW);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{WORKFLOW}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{WORKFLOW}: {e}"))
}

/// The one job with a matrix, and the one that needs it.
fn shard_and_merge(w: &Workflow) -> ((&str, &Job), (&str, &Job)) {
    let shards: Vec<_> = w
        .jobs
        .iter()
        .filter(|(_, j)| j.strategy.is_some())
        .collect();
    assert_eq!(shards.len(), 1, "one matrix job of shards");
    let (shard_name, shard) = shards[0];
    let merges: Vec<_> = w
        .jobs
        .iter()
        .filter(|(_, j)| j.needs.list().contains(shard_name))
        .collect();
    assert_eq!(merges.len(), 1, "one job needs the shards");
    let (merge_name, merge) = merges[0];
    ((shard_name, shard), (merge_name, merge))
}

fn uses<'a>(job: &'a Job, action: &str) -> Vec<&'a Step> {
    job.steps
        .iter()
        .filter(|s| {
            s.uses
                .as_deref()
                .is_some_and(|u| u.split('@').next() == Some(action))
        })
        .collect()
}

fn runs<'a>(job: &'a Job, needle: &str) -> Vec<&'a Step> {
    job.steps
        .iter()
        .filter(|s| s.run.as_deref().is_some_and(|r| r.contains(needle)))
        .collect()
}

// ---------------------------------------------------------------------------
// Its shape
// ---------------------------------------------------------------------------

#[test]
fn the_workflow_shards_with_a_fixed_seed_and_merges_in_a_job_after_them() {
    let w = workflow();
    // `on` is a key, not YAML 1.1's `true`.
    assert!(w.on.is_mapping(), "on: {:?}", w.on);
    // A fixed seed for the whole run, overridden nowhere.
    let seed = w
        .env
        .get("KPE_CHECK_SEED")
        .expect("a workflow-level KPE_CHECK_SEED");
    seed.text()
        .parse::<u64>()
        .unwrap_or_else(|e| panic!("KPE_CHECK_SEED {seed:?}: {e}"));
    for (name, job) in &w.jobs {
        assert!(!job.env.contains_key("KPE_CHECK_SEED"), "job {name}");
        for step in &job.steps {
            assert!(
                !step.env.contains_key("KPE_CHECK_SEED")
                    && !step.run.as_deref().unwrap_or("").contains("--seed"),
                "job {name}, step {}: the seed is the workflow's",
                step.label()
            );
        }
    }
    let ((_, shard), (merge_name, merge)) = shard_and_merge(&w);
    // The matrix is 1..N, and a diverging shard cancels no other.
    let strategy = shard.strategy.as_ref().unwrap();
    assert_eq!(strategy.fail_fast, Some(false));
    assert_eq!(strategy.matrix.len(), 1, "{:?}", strategy.matrix.keys());
    let values: Vec<String> = strategy.matrix["shard"].iter().map(Scalar::text).collect();
    let n = values.len();
    assert!(n >= 2, "{values:?}");
    assert_eq!(
        values,
        (1..=n).map(|k| k.to_string()).collect::<Vec<_>>(),
        "the matrix numbers the shards 1..N"
    );
    // Each shard checks its share as JSON and uploads it.
    let check = runs(shard, "kpe-check");
    assert_eq!(check.len(), 1);
    let check = check[0].run.as_deref().unwrap();
    assert!(
        check.contains("--shard ${{ matrix.shard }}/${{ strategy.job-total }}"),
        "{check}"
    );
    assert!(check.contains("--format json"), "{check}");
    let upload = uses(shard, "actions/upload-artifact");
    assert_eq!(upload.len(), 1);
    let artifact = upload[0].with["name"].text();
    assert!(artifact.contains("${{ matrix.shard }}"), "{artifact}");
    // The merge job downloads every shard's artifact, flat, and merges.
    assert!(merge.strategy.is_none());
    let download = uses(merge, "actions/download-artifact");
    assert_eq!(download.len(), 1, "job {merge_name}");
    let with = &download[0].with;
    let pattern = globset::Glob::new(&with["pattern"].text())
        .unwrap()
        .compile_matcher();
    for k in &values {
        assert!(pattern.is_match(artifact.replace("${{ matrix.shard }}", k)));
    }
    assert_eq!(
        with["merge-multiple"].text(),
        "true",
        "one folder of reports"
    );
    assert_eq!(runs(merge, "kpe-check merge").len(), 1, "job {merge_name}");
}

// ---------------------------------------------------------------------------
// Running it
// ---------------------------------------------------------------------------

/// What this test's runner keeps between jobs.
struct Runner {
    /// Uploaded artifacts, one folder each.
    artifacts: PathBuf,
    /// The `cargo` stand-in's folder and the file it logs its calls to.
    bin: PathBuf,
    cargo_log: PathBuf,
    /// Where each job instance's workspace goes.
    scratch: PathBuf,
    /// Environment variables for every step, on top of the workflow's.
    extra_env: Vec<(String, String)>,
    /// What `actions/checkout` links into a workspace: this repository, or
    /// an engine's.
    checkout: PathBuf,
    /// The Actions cache: one folder per key, holding the saved path.
    cache: PathBuf,
    /// The outputs of each run of this repository's action, in order.
    action_outputs: std::cell::RefCell<Vec<BTreeMap<String, String>>>,
}

/// One run of one job instance.
struct JobRun {
    workspace: PathBuf,
    /// Each step's label, exit code (None: skipped) and output.
    steps: Vec<(String, Option<i32>, String)>,
}

impl JobRun {
    fn failed(&self) -> bool {
        self.steps
            .iter()
            .any(|(_, code, _)| code.is_some_and(|c| c != 0))
    }

    fn log(&self) -> String {
        self.steps
            .iter()
            .map(|(label, code, out)| format!("--- {label}: {code:?}\n{out}"))
            .collect()
    }
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Runner {
    fn new(dir: &Path) -> Runner {
        let bin = dir.join("bin");
        let artifacts = dir.join("artifacts");
        let scratch = dir.join("jobs");
        let cache = dir.join("cache");
        for d in [&bin, &artifacts, &scratch, &cache] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cargo_log = dir.join("cargo.log");
        // `cargo build` "builds" by linking the binaries cargo test built,
        // and `cargo install` (the action's) by linking them into its root.
        let cargo = format!(
            "#!/bin/sh\n\
             # tests/workflow.rs: the binaries are built already.\n\
             echo \"$*\" >> {log}\n\
             if [ \"$*\" = 'build --release --locked --bins' ]; then\n\
               out=target/release\n\
             elif [ \"$1 $2 $3\" = 'install --locked --path' ] && [ -f \"$4/action.yml\" ] && [ \"$5\" = --root ] && [ $# = 6 ]; then\n\
               out=\"$6/bin\"\n\
             else\n\
               echo \"cargo stand-in: unexpected: $*\" >&2; exit 101\n\
             fi\n\
             mkdir -p \"$out\"\n\
             ln -sf {kpe} \"$out/kpe\"\n\
             ln -sf {check} \"$out/kpe-check\"\n",
            log = shell_quote(&cargo_log.display().to_string()),
            kpe = shell_quote(env!("CARGO_BIN_EXE_kpe")),
            check = shell_quote(env!("CARGO_BIN_EXE_kpe-check")),
        );
        let path = bin.join("cargo");
        std::fs::write(&path, cargo).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Runner {
            artifacts,
            bin,
            cargo_log,
            scratch,
            extra_env: Vec::new(),
            checkout: root().to_owned(),
            cache,
            action_outputs: Default::default(),
        }
    }

    /// Empties the workspaces and artifacts for another run of the
    /// workflow on the same runner: the cache and the cargo log stay.
    fn clear(&self) {
        for d in [&self.scratch, &self.artifacts] {
            std::fs::remove_dir_all(d).unwrap();
            std::fs::create_dir_all(d).unwrap();
        }
        self.action_outputs.borrow_mut().clear();
    }

    /// Runs every job of `w`, those a job needs before it, and returns
    /// each job's instances by job name.
    fn run(&self, w: &Workflow) -> BTreeMap<String, Vec<JobRun>> {
        let mut done: BTreeMap<String, Vec<JobRun>> = BTreeMap::new();
        while done.len() < w.jobs.len() {
            let (name, job) = w
                .jobs
                .iter()
                .find(|(name, job)| {
                    !done.contains_key(*name)
                        && job.needs.list().iter().all(|n| done.contains_key(n))
                })
                .expect("the jobs' needs form no cycle and name existing jobs");
            let needs_failed = job
                .needs
                .list()
                .iter()
                .any(|n| done[n].iter().any(JobRun::failed));
            assert!(!needs_failed, "job {name}: a job it needs failed");
            let mut runs = Vec::new();
            let matrix = expand_matrix(job);
            let total = matrix.len();
            for (index, cell) in matrix.into_iter().enumerate() {
                runs.push(self.run_job(w, name, job, &cell, index, total));
            }
            done.insert(name.clone(), runs);
        }
        done
    }

    fn run_job(
        &self,
        w: &Workflow,
        name: &str,
        job: &Job,
        matrix: &[(String, String)],
        index: usize,
        total: usize,
    ) -> JobRun {
        assert_eq!(job.runs_on, "ubuntu-latest", "job {name}");
        let workspace = self.scratch.join(format!("{name}-{index}"));
        let temp = self.scratch.join(format!("{name}-{index}.temp"));
        for d in [&workspace, &temp] {
            std::fs::create_dir_all(d).unwrap();
        }
        let github_path = temp.join("github_path");
        std::fs::write(&github_path, "").unwrap();
        let summary = temp.join("step_summary");
        let mut context: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in matrix {
            context.insert(format!("matrix.{k}"), v.clone());
        }
        context.insert("strategy.job-index".into(), index.to_string());
        context.insert("strategy.job-total".into(), total.to_string());
        context.insert("github.workspace".into(), workspace.display().to_string());
        context.insert("runner.temp".into(), temp.display().to_string());
        context.insert("runner.os".into(), "Linux".into());
        let mut env: Vec<(String, String)> = vec![
            ("CI".into(), "true".into()),
            ("GITHUB_ACTIONS".into(), "true".into()),
            ("GITHUB_WORKSPACE".into(), workspace.display().to_string()),
            ("GITHUB_PATH".into(), github_path.display().to_string()),
            ("GITHUB_STEP_SUMMARY".into(), summary.display().to_string()),
            ("RUNNER_TEMP".into(), temp.display().to_string()),
            ("RUNNER_OS".into(), "Linux".into()),
            ("HOME".into(), temp.display().to_string()),
        ];
        env.extend(self.extra_env.iter().cloned());
        for (k, v) in w.env.iter().chain(&job.env) {
            let v = expand(&v.text(), &context, name);
            context.insert(format!("env.{k}"), v.clone());
            env.push((k.clone(), v));
        }
        let shell = w.defaults.as_ref().map(|d| d.run.shell.as_str());
        let mut run = JobRun {
            workspace: workspace.clone(),
            steps: Vec::new(),
        };
        for step in &job.steps {
            let label = expand(&step.label(), &context, name);
            let failed = run.failed();
            if !condition(step.condition.as_deref(), &context, failed, name) {
                run.steps.push((label, None, String::new()));
                continue;
            }
            let (code, out) = match (&step.uses, &step.run) {
                (Some(action), None) => {
                    self.action(action, step, &context, &workspace, name, &env, &github_path)
                }
                (None, Some(script)) => {
                    let script = expand(script, &context, name);
                    let mut step_env = env.clone();
                    for (k, v) in &step.env {
                        step_env.push((k.clone(), expand(&v.text(), &context, name)));
                    }
                    self.script(&script, shell, &step_env, &github_path, &workspace)
                }
                _ => panic!("job {name}, step {label}: expected one of `uses` and `run`"),
            };
            run.steps.push((label, Some(code), out));
        }
        run
    }

    /// A `run:` step: `shell: bash` runs `bash --noprofile --norc -eo
    /// pipefail`, the default shell `bash -e`.
    fn script(
        &self,
        script: &str,
        shell: Option<&str>,
        env: &[(String, String)],
        github_path: &Path,
        workspace: &Path,
    ) -> (i32, String) {
        let mut cmd = Command::new("bash");
        match shell {
            Some("bash") => cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c"]),
            None => cmd.args(["-e", "-c"]),
            Some(other) => panic!("shell `{other}` is not known to this test's runner"),
        };
        cmd.arg(script).current_dir(workspace).env_clear();
        // GITHUB_PATH: each line added is put before PATH, the last first.
        let added = std::fs::read_to_string(github_path).unwrap();
        let mut path: Vec<String> = added.lines().rev().map(str::to_owned).collect();
        path.push(self.bin.display().to_string());
        path.push(std::env::var("PATH").unwrap_or_default());
        cmd.env("PATH", path.join(":"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("bash runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text)
    }

    /// A `uses:` step: the actions the workflows use, and this
    /// repository's own (`./` in its own workflow, `OWNER/kpe@vVERSION`
    /// in an engine's).
    #[allow(clippy::too_many_arguments)]
    fn action(
        &self,
        action: &str,
        step: &Step,
        context: &BTreeMap<String, String>,
        workspace: &Path,
        job: &str,
        env: &[(String, String)],
        github_path: &Path,
    ) -> (i32, String) {
        if action == "./" {
            return self.composite(workspace, step, context, workspace, job, env, github_path);
        }
        if let Some((repo, tag)) = action.split_once('@')
            && repo.rsplit('/').next() == Some("kpe")
        {
            assert_eq!(
                tag,
                format!("v{}", env!("CARGO_PKG_VERSION")),
                "job {job}: `uses: {action}` names another version than the crate's"
            );
            return self.composite(root(), step, context, workspace, job, env, github_path);
        }
        let with = |key: &str| step.with.get(key).map(|v| expand(&v.text(), context, job));
        for key in step.with.keys() {
            let known: &[&str] = match action {
                "actions/upload-artifact@v4" => &["name", "path", "if-no-files-found"],
                "actions/download-artifact@v4" => &["name", "pattern", "path", "merge-multiple"],
                "actions/cache/restore@v4" | "actions/cache/save@v4" => &["path", "key"],
                _ => &[],
            };
            assert!(
                known.contains(&key.as_str()),
                "job {job}: `{action}` with `{key}` is not known to this test's runner"
            );
        }
        match action {
            // The checkout: the repository's files, linked in.
            "actions/checkout@v4" => {
                for entry in std::fs::read_dir(&self.checkout).unwrap() {
                    let entry = entry.unwrap();
                    let name = entry.file_name();
                    if name == "target" || name == ".git" {
                        continue;
                    }
                    std::os::unix::fs::symlink(entry.path(), workspace.join(&name)).unwrap();
                }
                (0, String::new())
            }
            "actions/upload-artifact@v4" => {
                let name = with("name").unwrap_or_else(|| "artifact".into());
                let dir = self.artifacts.join(&name);
                assert!(
                    !dir.exists(),
                    "job {job}: artifact {name} is uploaded twice"
                );
                std::fs::create_dir_all(&dir).unwrap();
                let mut found = 0;
                for line in with("path").expect("a path").lines().map(str::trim) {
                    if line.is_empty() {
                        continue;
                    }
                    assert!(
                        !line.contains(['/', '*', '?', '!']),
                        "job {job}: path `{line}` is not known to this test's runner: files of the workspace's top folder only"
                    );
                    let from = workspace.join(line);
                    if from.is_file() {
                        std::fs::copy(&from, dir.join(line)).unwrap();
                        found += 1;
                    }
                }
                let missing = with("if-no-files-found").unwrap_or_else(|| "warn".into());
                if found == 0 && missing == "error" {
                    return (1, format!("no files found for artifact {name}"));
                }
                (0, format!("uploaded {found} files as {name}"))
            }
            "actions/download-artifact@v4" => {
                let dest = workspace.join(with("path").unwrap_or_default());
                let flat = with("merge-multiple").is_some_and(|m| m == "true");
                let matcher = match (with("name"), with("pattern")) {
                    (Some(name), None) => globset::Glob::new(&globset::escape(&name)),
                    (None, Some(pattern)) => globset::Glob::new(&pattern),
                    _ => panic!("job {job}: download-artifact with one of name and pattern"),
                }
                .unwrap()
                .compile_matcher();
                let mut got = 0;
                for entry in std::fs::read_dir(&self.artifacts).unwrap() {
                    let entry = entry.unwrap();
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if !matcher.is_match(&name) {
                        continue;
                    }
                    let to = if flat { dest.clone() } else { dest.join(&name) };
                    std::fs::create_dir_all(&to).unwrap();
                    for file in std::fs::read_dir(entry.path()).unwrap() {
                        let file = file.unwrap();
                        std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
                    }
                    got += 1;
                }
                (0, format!("downloaded {got} artifacts"))
            }
            // The cache: one folder per key; a key is never saved twice,
            // and a restore needs the path it was saved from.
            "actions/cache/restore@v4" => {
                let (path, key) = (with("path").unwrap(), with("key").unwrap());
                let saved = self.cache.join(&key);
                if !saved.exists() {
                    return (0, format!("cache-hit=false\nno cache for key {key}"));
                }
                let from = std::fs::read_to_string(saved.join("path")).unwrap();
                assert_eq!(from, path, "job {job}: key {key} saved from another path");
                copy_tree(&saved.join("files"), Path::new(&path));
                (0, format!("cache-hit=true\nrestored {key}"))
            }
            "actions/cache/save@v4" => {
                let (path, key) = (with("path").unwrap(), with("key").unwrap());
                let saved = self.cache.join(&key);
                assert!(!saved.exists(), "job {job}: key {key} is saved twice");
                assert!(
                    Path::new(&path).is_dir(),
                    "job {job}: nothing at {path} to save"
                );
                std::fs::create_dir_all(&saved).unwrap();
                std::fs::write(saved.join("path"), &path).unwrap();
                copy_tree(Path::new(&path), &saved.join("files"));
                (0, format!("saved {key}"))
            }
            other => panic!("job {job}: `uses: {other}` is not known to this test's runner"),
        }
    }

    /// This repository's composite action, `action.yml`, from the folder
    /// `action_path`: its inputs from `with` and their defaults, each step
    /// as Actions runs a composite's (`shell: bash` required, `steps.*`
    /// outputs through GITHUB_OUTPUT, the first failure skipping the rest
    /// but `if: always()`), its outputs recorded in `action_outputs`.
    #[allow(clippy::too_many_arguments)]
    fn composite(
        &self,
        action_path: &Path,
        step: &Step,
        context: &BTreeMap<String, String>,
        workspace: &Path,
        job: &str,
        env: &[(String, String)],
        github_path: &Path,
    ) -> (i32, String) {
        let action = action_file();
        assert_eq!(action.runs.using, "composite");
        let mut ctx = context.clone();
        for key in step.with.keys() {
            assert!(
                action.inputs.contains_key(key),
                "job {job}: the action has no input `{key}`"
            );
        }
        for (key, input) in &action.inputs {
            let given = step.with.get(key).map(|v| expand(&v.text(), context, job));
            let value = given.or_else(|| input.default.as_ref().map(Scalar::text));
            if input.required && value.as_deref().is_none_or(str::is_empty) {
                return (1, format!("Input required and not supplied: {key}"));
            }
            ctx.insert(format!("inputs.{key}"), value.unwrap_or_default());
        }
        let action_path = action_path.display().to_string();
        ctx.insert("github.action_path".into(), action_path.clone());
        let mut log = String::new();
        let mut status = 0;
        for (index, inner) in action.runs.steps.iter().enumerate() {
            let label = expand(&inner.label(), &ctx, job);
            if !condition(inner.condition.as_deref(), &ctx, status != 0, job) {
                log.push_str(&format!("  --- {label}: skipped\n"));
                continue;
            }
            let (code, out, outputs) = match (&inner.uses, &inner.run) {
                (Some(uses), None) => {
                    let (code, out) =
                        self.action(uses, inner, &ctx, workspace, job, env, github_path);
                    // The cache actions' one output, from their log.
                    let hit = out.lines().find_map(|l| l.strip_prefix("cache-hit="));
                    let outputs = hit.map(|h| ("cache-hit".to_owned(), h.to_owned()));
                    (code, out, outputs.into_iter().collect())
                }
                (None, Some(script)) => {
                    assert_eq!(
                        inner.shell.as_deref(),
                        Some("bash"),
                        "{ACTION}, step {label}: a composite's run step needs `shell: bash`"
                    );
                    let output = github_path.with_file_name(format!("output-{index}"));
                    std::fs::write(&output, "").unwrap();
                    let mut step_env = env.to_vec();
                    step_env.push(("GITHUB_ACTION_PATH".into(), action_path.clone()));
                    step_env.push(("GITHUB_OUTPUT".into(), output.display().to_string()));
                    for (k, v) in &inner.env {
                        step_env.push((k.clone(), expand(&v.text(), &ctx, job)));
                    }
                    let script = expand(script, &ctx, job);
                    let (code, out) =
                        self.script(&script, Some("bash"), &step_env, github_path, workspace);
                    let outputs: Vec<(String, String)> = std::fs::read_to_string(&output)
                        .unwrap()
                        .lines()
                        .map(|l| {
                            let (k, v) = l.split_once('=').expect("name=value in GITHUB_OUTPUT");
                            (k.to_owned(), v.to_owned())
                        })
                        .collect();
                    (code, out, outputs)
                }
                _ => panic!("{ACTION}, step {label}: expected one of `uses` and `run`"),
            };
            if let Some(id) = &inner.id {
                for (k, v) in outputs {
                    ctx.insert(format!("steps.{id}.outputs.{k}"), v);
                }
            }
            log.push_str(&format!("  --- {label}: {code}\n{out}"));
            if code != 0 && status == 0 {
                status = code;
            }
        }
        let outputs = action
            .outputs
            .iter()
            .map(|(k, o)| (k.clone(), expand(&o.value, &ctx, job)))
            .collect();
        self.action_outputs.borrow_mut().push(outputs);
        (status, log)
    }
}

/// Copies a folder, symbolic links as links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).unwrap();
            std::os::unix::fs::symlink(target, dest).unwrap();
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// Whether a step with this `if:` runs: the status functions, and
/// `NAME == 'text'` or `NAME != 'text'` over the context.
fn condition(
    condition: Option<&str>,
    context: &BTreeMap<String, String>,
    failed: bool,
    job: &str,
) -> bool {
    let Some(text) = condition else {
        return !failed;
    };
    let text = text.trim();
    let text = text
        .strip_prefix("${{")
        .and_then(|t| t.strip_suffix("}}"))
        .unwrap_or(text)
        .trim();
    match text {
        "success()" => return !failed,
        "always()" => return true,
        "failure()" => return failed,
        _ => {}
    }
    for (op, equal) in [("!=", false), ("==", true)] {
        if let Some((name, literal)) = text.split_once(op) {
            let literal = literal.trim();
            let literal = literal
                .strip_prefix('\'')
                .and_then(|l| l.strip_suffix('\''))
                .unwrap_or_else(|| panic!("job {job}: `if: {text}`: a quoted literal"));
            let value = lookup(name.trim(), context, job);
            // Like success() && ...: a failure skips the step.
            return !failed && ((value == literal) == equal);
        }
    }
    panic!("job {job}: `if: {text}` is not known to this test's runner")
}

/// A context value; a step output never set is empty, as in Actions.
fn lookup(name: &str, context: &BTreeMap<String, String>, job: &str) -> String {
    match context.get(name) {
        Some(value) => value.clone(),
        None if name.starts_with("steps.") => String::new(),
        None => panic!("job {job}: `${{{{ {name} }}}}` is not known to this test's runner"),
    }
}

/// The cells of a job's matrix (one empty cell for a job without one).
fn expand_matrix(job: &Job) -> Vec<Vec<(String, String)>> {
    let mut cells = vec![Vec::new()];
    let Some(strategy) = &job.strategy else {
        return cells;
    };
    for (key, values) in &strategy.matrix {
        assert!(
            key != "include" && key != "exclude",
            "matrix {key} is not known to this test's runner"
        );
        cells = cells
            .into_iter()
            .flat_map(|cell| {
                values.iter().map(move |v| {
                    let mut cell = cell.clone();
                    cell.push((key.clone(), v.text()));
                    cell
                })
            })
            .collect();
    }
    cells
}

/// Substitutes every `${{ name }}` from `context`.
fn expand(text: &str, context: &BTreeMap<String, String>, job: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("}}")
            .unwrap_or_else(|| panic!("job {job}: unclosed `${{{{` in {text:?}"));
        let name = rest[start + 3..start + end].trim();
        out.push_str(&lookup(name, context, job));
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

/// The unsharded run of the workflow's manifest, from the repository, with
/// the same environment: its exit code, JSON report and JUnit file.
fn unsharded(w: &Workflow, extra_env: &[(String, String)], dir: &Path) -> (i32, Value, String) {
    let junit = dir.join("whole.xml");
    let bin = Path::new(env!("CARGO_BIN_EXE_kpe")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kpe-check"));
    cmd.current_dir(root())
        .env_clear()
        .env("PATH", path)
        .args(["--format", "json", "--junit"])
        .arg(&junit)
        .arg(w.env["MANIFEST"].text());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.env("KPE_CHECK_SEED", w.env["KPE_CHECK_SEED"].text());
    let out = cmd.output().unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (
        out.status.code().unwrap(),
        report,
        std::fs::read_to_string(junit).unwrap(),
    )
}

/// What two runs of the same units may differ in: times, and what each
/// shard shrinks and explains on its own answers.
fn comparable(mut v: Value) -> Value {
    for unit in v["units"].as_array_mut().unwrap() {
        unit["time"] = json!(0);
        if let Some(d) = unit.get_mut("divergence") {
            d["notes"] = json!(null);
            d["scenario"] = json!(null);
        }
    }
    if let Some(profiles) = v["summary"]["profiles"].as_array_mut() {
        for p in profiles {
            p["explanations"] = json!(null);
        }
    }
    v
}

/// JUnit XML without its `time` attributes.
fn timeless(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(at) = rest.find(" time=\"") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 7..];
        rest = &after[after.find('"').unwrap() + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_workflow_runs_and_its_merged_report_is_the_unsharded_one() {
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        eprintln!("skipped: the workflow's steps need bash, which is not on PATH");
        return;
    }
    let w = workflow();
    for var in ["KPE_CHECK_GAMES", "KPE_CHECK_PERFT_DEPTH"] {
        assert!(!w.env.contains_key(var), "the test sets {var} itself");
    }
    let dir = tempfile::tempdir().unwrap();
    let mut runner = Runner::new(dir.path());
    runner.extra_env = vec![
        ("KPE_CHECK_GAMES".into(), "6".into()),
        ("KPE_CHECK_PERFT_DEPTH".into(), "3".into()),
    ];
    let jobs = runner.run(&w);
    let ((shard_name, _), (merge_name, _)) = shard_and_merge(&w);
    let shards = &jobs[shard_name];
    for (k, run) in shards.iter().enumerate() {
        assert!(!run.failed(), "shard {}:\n{}", k + 1, run.log());
    }
    // Each job built once: the shards and the merge from the checkout, the
    // action's job through the action's `cargo install`.
    let cargo = std::fs::read_to_string(&runner.cargo_log).unwrap();
    let builds = cargo
        .lines()
        .filter(|l| *l == "build --release --locked --bins")
        .count();
    let installs = cargo.lines().filter(|l| l.starts_with("install ")).count();
    assert_eq!((builds, installs), (shards.len() + 1, 1), "{cargo}");
    assert_eq!(cargo.lines().count(), builds + installs, "{cargo}");
    let merge = &jobs[merge_name][0];
    let (whole_code, whole, whole_junit) = unsharded(&w, &runner.extra_env, dir.path());
    // The action's job, on the same engine in two shares: the same verdict.
    let action = &jobs["action"][0];
    assert!(!action.failed() || whole_code != 0, "{}", action.log());
    let outputs = runner.action_outputs.borrow();
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0]["exit-code"], whole_code.to_string());
    assert_eq!(outputs[0]["verdict"], whole["verdict"].as_str().unwrap());
    assert!(action.workspace.join("action.xml").is_file());
    // The merge step's exit code is the unsharded run's.
    let (label, code, out) = merge
        .steps
        .iter()
        .find(|(label, _, _)| label == "Merge the shards")
        .expect("the merge step");
    assert_eq!(*code, Some(whole_code), "{label}:\n{}", merge.log());
    assert!(out.contains("CONFORMS"), "{out}");
    // The reports: the JSON merge of the downloaded shards, and the JUnit
    // file the merge job uploaded.
    let mut reports: Vec<PathBuf> = std::fs::read_dir(merge.workspace.join("shards"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    reports.sort();
    assert_eq!(reports.len(), shards.len(), "{reports:?}");
    let merged = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg("merge")
        .args(&reports)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(whole_code));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert!(whole["units"].as_array().unwrap().len() > 100, "{whole}");
    assert_eq!(
        merged["run"]["certificate"]["seed"],
        json!(w.env["KPE_CHECK_SEED"].text().parse::<u64>().unwrap())
    );
    let (merged, whole) = (comparable(merged), comparable(whole));
    for key in ["run", "summary", "groups", "verdict", "exit_code"] {
        assert_eq!(merged[key], whole[key], "{key}");
    }
    let (units, whole_units) = (
        merged["units"].as_array().unwrap(),
        whole["units"].as_array().unwrap(),
    );
    assert_eq!(units.len(), whole_units.len());
    for (unit, whole_unit) in units.iter().zip(whole_units) {
        assert_eq!(unit, whole_unit);
    }
    assert_eq!(merged, whole, "the rest of the report");
    let junit = std::fs::read_to_string(runner.artifacts.join("kpe-check-report/kpe-check.xml"))
        .expect("the merge job uploads the JUnit file");
    assert_eq!(timeless(&junit), timeless(&whole_junit));
    assert!(
        runner
            .artifacts
            .join("kpe-check-report/kpe-check.html")
            .is_file()
    );
}

/// The bug of issue 26 that the fixed seed mends: without it each shard
/// draws its own games and the merge refuses them.
#[test]
fn without_the_fixed_seed_the_merge_refuses_the_shards() {
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        eprintln!("skipped: the workflow's steps need bash, which is not on PATH");
        return;
    }
    let mut w = workflow();
    assert!(w.env.remove("KPE_CHECK_SEED").is_some());
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    // A small suite keeps this run short: one scenario file of the real one.
    std::fs::copy(
        root().join("conformance/capture.yaml"),
        suite.join("capture.yaml"),
    )
    .unwrap();
    let mut runner = Runner::new(dir.path());
    runner.extra_env = vec![
        ("KPE_CHECK_GAMES".into(), "4".into()),
        ("KPE_CHECK_PERFT_DEPTH".into(), "1".into()),
        ("KPE_CHECK_SUITE".into(), suite.display().to_string()),
    ];
    let jobs = runner.run(&w);
    let (_, (merge_name, _)) = shard_and_merge(&w);
    let merge = &jobs[merge_name][0];
    let (_, code, out) = merge
        .steps
        .iter()
        .find(|(label, _, _)| label == "Merge the shards")
        .unwrap();
    assert_eq!(*code, Some(2), "{}", merge.log());
    assert!(out.contains("not a shard of the same run"), "{out}");
    // The report upload still runs (`if: always()`), with nothing to upload.
    assert_eq!(merge.steps.last().unwrap().1, Some(0), "{}", merge.log());
}

/// Issue 26: `kpe-release.json` named `../../target/release/kpe` and failed
/// (exit 3) wherever CARGO_TARGET_DIR put the build. No sample manifest
/// names a build folder; the reference one finds `kpe` on PATH.
#[test]
fn the_sample_manifests_find_their_program_without_a_build_folder() {
    let dir = root().join("examples/engines");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let m: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let program = m["command"][0].as_str().unwrap();
            assert!(
                !program.contains('/') && !program.contains("target"),
                "{}: {program}",
                path.display()
            );
        }
    }
    // Run from another directory, with only kpe's folder on PATH.
    let elsewhere = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_kpe")).parent().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .current_dir(elsewhere.path())
        .env("PATH", bin)
        .env("CARGO_TARGET_DIR", elsewhere.path())
        .args([
            "--games",
            "2",
            "--perft-depth",
            "1",
            "--only",
            "perft/*",
            "--only",
            "random/*",
            "-q",
        ])
        .arg(dir.join("kpe-release.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------
// The action, from an engine's repository (issue 44)
// ---------------------------------------------------------------------------

/// The README's CI section, whole: the workflow an engine's repository
/// adds.
fn readme_workflow() -> Workflow {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("```yaml\nname: kpe\n")
        .expect("the README's workflow for an engine's repository");
    let block = &readme[start + "```yaml\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    serde_yaml::from_str(block).unwrap_or_else(|e| panic!("README's workflow: {e}\n{block}"))
}

/// The one step of `w` that uses this repository's action.
fn kpe_step(w: &mut Workflow) -> &mut Step {
    let mut steps: Vec<&mut Step> = w
        .jobs
        .values_mut()
        .flat_map(|j| j.steps.iter_mut())
        .filter(|s| s.uses.as_deref().is_some_and(|u| u.contains("/kpe@")))
        .collect();
    assert_eq!(steps.len(), 1, "one step uses the kpe action");
    steps.pop().unwrap()
}

/// The reports the action's shares wrote, in the job's temporary folder.
fn share_reports(runner: &Runner, job: &str) -> Vec<Value> {
    let temp = runner.scratch.join(format!("{job}-0.temp"));
    let mut found = Vec::new();
    for entry in std::fs::read_dir(temp).unwrap() {
        let dir = entry.unwrap().path();
        if dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("kpe-shards.")
        {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for file in files {
                found.push(serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap());
            }
        }
    }
    found
}

#[test]
fn the_action_has_the_inputs_the_readme_gives_and_builds_from_its_own_checkout() {
    let action = action_file();
    assert_eq!(action.runs.using, "composite");
    let inputs: Vec<&str> = action.inputs.keys().map(String::as_str).collect();
    assert_eq!(
        inputs,
        ["html", "junit", "manifest", "profiles", "seed", "shards"]
    );
    assert!(action.inputs["manifest"].required);
    for (name, input) in &action.inputs {
        assert!(
            name == "manifest" || (!input.required && input.default.is_some()),
            "{name}"
        );
    }
    // Inputs reach the scripts as environment variables, never spliced
    // into the script's text.
    for step in &action.runs.steps {
        let script = step.run.as_deref().unwrap_or("");
        assert!(!script.contains("${{"), "{}: {script}", step.label());
    }
    // It builds from the action's checkout, never the workspace's.
    let text = std::fs::read_to_string(root().join(ACTION)).unwrap();
    assert!(text.contains("cargo install --locked --path \"$GITHUB_ACTION_PATH\""));
    assert!(!text.contains("cargo build"));
    // The README's workflow uses this version of it.
    let mut w = readme_workflow();
    let step = kpe_step(&mut w);
    let uses = step.uses.as_deref().unwrap();
    assert!(
        uses.ends_with(&format!("/kpe@v{}", env!("CARGO_PKG_VERSION"))),
        "{uses}"
    );
    for key in step.with.keys() {
        assert!(action.inputs.contains_key(key), "README: input {key}");
    }
}

#[test]
fn the_readme_workflow_certifies_an_engine_from_its_own_repository() {
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        eprintln!("skipped: the workflow's steps need bash, which is not on PATH");
        return;
    }
    let mut w = readme_workflow();
    let manifest = kpe_step(&mut w).with["manifest"].text();
    let dir = tempfile::tempdir().unwrap();
    // The engine's repository: its manifest, the reference engine as the
    // engine (found on PATH, where the action puts kpe).
    let repo = dir.path().join("engine-repo");
    std::fs::create_dir_all(&repo).unwrap();
    let write_manifest = |command: &str| {
        let m = format!(
            "{{\"format\": \"kpe-engine\", \"version\": 1, \"command\": {command}, \"profile\": \"default\"}}"
        );
        std::fs::write(repo.join(&manifest), m).unwrap();
    };
    write_manifest(r#"["kpe", "engine"]"#);
    let mut runner = Runner::new(dir.path());
    runner.checkout = repo.clone();
    runner.extra_env = vec![
        ("KPE_CHECK_GAMES".into(), "6".into()),
        ("KPE_CHECK_PERFT_DEPTH".into(), "3".into()),
    ];
    let (job, _) = w.jobs.iter().next().unwrap();
    let job = job.clone();

    // The first run builds kpe from the action's checkout and certifies.
    let jobs = runner.run(&w);
    let run = &jobs[&job][0];
    assert!(!run.failed(), "{}", run.log());
    let outputs = runner.action_outputs.borrow().clone();
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0]["verdict"], "conforms", "{}", run.log());
    assert_eq!(outputs[0]["exit-code"], "0");
    let cargo = std::fs::read_to_string(&runner.cargo_log).unwrap();
    let temp = runner.scratch.join(format!("{job}-0.temp"));
    assert_eq!(
        cargo.trim_end(),
        format!(
            "install --locked --path {} --root {}/kpe-action",
            root().display(),
            temp.display()
        )
    );
    let summary = std::fs::read_to_string(temp.join("step_summary")).unwrap();
    assert!(summary.contains("**conforms** (exit 0)"), "{summary}");
    for file in ["kpe-check.xml", "kpe-check.html"] {
        assert!(
            runner
                .artifacts
                .join("kpe-check-report")
                .join(file)
                .is_file(),
            "{file}:\n{}",
            run.log()
        );
    }
    // The seed given, every share's.
    let reports = share_reports(&runner, &job);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0]["run"]["certificate"]["seed"], json!(1));

    // The second run takes the build from the cache.
    runner.clear();
    let jobs = runner.run(&w);
    let run = &jobs[&job][0];
    assert!(!run.failed(), "{}", run.log());
    assert!(run.log().contains("the cached build"), "{}", run.log());
    assert_eq!(
        std::fs::read_to_string(&runner.cargo_log).unwrap(),
        cargo,
        "no second build"
    );

    // Three shares and no seed: they share the first one's seed, and the
    // merged verdict is the engine's.
    let step = kpe_step(&mut w);
    step.with.remove("seed");
    step.with.insert("shards".into(), Scalar::Text("3".into()));
    runner.clear();
    let jobs = runner.run(&w);
    let run = &jobs[&job][0];
    assert!(!run.failed(), "{}", run.log());
    let reports = share_reports(&runner, &job);
    assert_eq!(reports.len(), 3);
    let seed = &reports[0]["run"]["certificate"]["seed"];
    assert!(seed.is_u64(), "{seed}");
    for (k, report) in reports.iter().enumerate() {
        assert_eq!(
            &report["run"]["certificate"]["seed"],
            seed,
            "share {}",
            k + 1
        );
        assert_eq!(
            report["run"]["certificate"]["shard"],
            json!({"index": k + 1, "count": 3})
        );
    }
    assert_eq!(runner.action_outputs.borrow()[0]["verdict"], "conforms");

    // An engine that plays another reading than it claims: the step fails
    // with the verdict, and the reports still upload.
    write_manifest(r#"["kpe", "engine", "--rules", "skip-origin"]"#);
    runner.clear();
    let jobs = runner.run(&w);
    let run = &jobs[&job][0];
    assert!(run.failed(), "{}", run.log());
    let (_, code, out) = run
        .steps
        .iter()
        .find(|(label, _, _)| label.contains("/kpe@"))
        .unwrap();
    assert_eq!(*code, Some(1), "{out}");
    assert!(out.contains("SOW-4"), "{out}");
    assert_eq!(runner.action_outputs.borrow()[0]["verdict"], "diverges");
    assert_eq!(runner.action_outputs.borrow()[0]["exit-code"], "1");
    assert_eq!(run.steps.last().unwrap().1, Some(0), "{}", run.log());
    assert!(
        runner
            .artifacts
            .join("kpe-check-report/kpe-check.html")
            .is_file()
    );

    // A manifest that is not there: bad input, said by the first share.
    std::fs::remove_file(repo.join(&manifest)).unwrap();
    kpe_step(&mut w)
        .with
        .insert("shards".into(), Scalar::Text("2".into()));
    runner.clear();
    let jobs = runner.run(&w);
    let (_, code, out) = jobs[&job][0]
        .steps
        .iter()
        .find(|(label, _, _)| label.contains("/kpe@"))
        .unwrap();
    assert_eq!(*code, Some(2), "{out}");
    assert!(out.contains("kpe-check exited 2 on share 1/2"), "{out}");
    assert_eq!(runner.action_outputs.borrow()[0]["verdict"], "bad-input");

    // A bad `shards` is bad input, before anything runs.
    kpe_step(&mut w)
        .with
        .insert("shards".into(), Scalar::Text("0".into()));
    runner.clear();
    let jobs = runner.run(&w);
    let (_, code, out) = jobs[&job][0]
        .steps
        .iter()
        .find(|(label, _, _)| label.contains("/kpe@"))
        .unwrap();
    assert_eq!(*code, Some(2), "{out}");
    assert!(out.contains("shards must be a whole number"), "{out}");
}
