//! Shell completions of `kpe` and `kpe-check` (issue 26): the scripts load
//! in bash, and completing a profile offers the profile names, not files.
//!
//! The bash tests need bash; they say so and pass when it is absent.

use std::process::Command;

use kpe::{Profile, Switch};

const KPE: &str = env!("CARGO_BIN_EXE_kpe");
const KPE_CHECK: &str = env!("CARGO_BIN_EXE_kpe-check");

fn has_bash() -> bool {
    let found = Command::new("bash")
        .args(["-c", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipped: bash is not on PATH");
    }
    found
}

/// Runs a bash script, with `$BIN` the binary; its standard output.
fn bash(script: &str, bin: &str) -> String {
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", script])
        .env("BIN", bin)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What bash offers for the last of `words` (the words of the command line,
/// the last one being completed), through the script's completion function.
fn complete(bin: &str, name: &str, words: &[&str]) -> Vec<String> {
    let words_array: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        r#"source <("$BIN" completions bash) || exit 1
spec=$(complete -p {name}) || exit 1
function=${{spec##*-F }}; function=${{function%% *}}
COMP_WORDS=({words}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
"$function" {name} "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        words = words_array.join(" "),
    );
    bash(&script, bin).lines().map(str::to_owned).collect()
}

fn profile_names() -> Vec<String> {
    Profile::all().map(|p| p.to_string()).collect()
}

#[test]
fn the_bash_completions_load() {
    if !has_bash() {
        return;
    }
    for (bin, name) in [(KPE, "kpe"), (KPE_CHECK, "kpe-check")] {
        let spec = bash(
            &format!(r#"source <("$BIN" completions bash) && complete -p {name}"#),
            bin,
        );
        assert!(
            spec.starts_with("complete ") && spec.trim_end().ends_with(name),
            "{spec}"
        );
    }
}

#[test]
fn kpe_check_profiles_complete_to_profile_names() {
    if !has_bash() {
        return;
    }
    let offered = complete(KPE_CHECK, "kpe-check", &["kpe-check", "--profiles", ""]);
    let mut expected = vec!["all".to_owned()];
    expected.extend(profile_names());
    assert_eq!(offered, expected);
    // The prefix typed so far narrows them.
    // (The I2 setting away from the default: `strict-lock`, or
    // `lock=after-sowing` once strict-lock is the default.)
    let name = Profile::DEFAULT.flipped(Switch::StrictLock).to_string();
    let prefix = &name[..4];
    let offered = complete(KPE_CHECK, "kpe-check", &["kpe-check", "--profiles", prefix]);
    assert!(offered.contains(&name), "{offered:?}");
    assert!(offered.iter().all(|p| p.starts_with(prefix)), "{offered:?}");
    // And the subcommands are offered at the start.
    let offered = complete(KPE_CHECK, "kpe-check", &["kpe-check", ""]);
    for sub in ["merge", "completions"] {
        assert!(offered.iter().any(|w| w == sub), "{offered:?}");
    }
}

/// Issue 44: `kpe-check merge --<TAB>` completed nothing (clap_complete
/// spelt the subcommands' states two ways for a name with a hyphen).
/// Driven in a real bash, as a user's Tab drives it.
#[test]
fn kpe_check_subcommands_complete_their_options_in_bash() {
    if !has_bash() {
        return;
    }
    let offered = complete(KPE_CHECK, "kpe-check", &["kpe-check", "merge", "--"]);
    for option in [
        "--format",
        "--junit",
        "--html",
        "--write-scenarios",
        "--help",
    ] {
        assert!(offered.iter().any(|w| w == option), "{option}: {offered:?}");
    }
    // Merge's options, not the run's.
    assert!(!offered.iter().any(|w| w == "--seed"), "{offered:?}");
    let offered = complete(
        KPE_CHECK,
        "kpe-check",
        &["kpe-check", "merge", "--format", ""],
    );
    assert_eq!(offered, ["human", "json"]);
    let offered = complete(KPE_CHECK, "kpe-check", &["kpe-check", "completions", ""]);
    for shell in ["bash", "zsh", "fish"] {
        assert!(offered.iter().any(|w| w == shell), "{shell}: {offered:?}");
    }
    let offered = complete(KPE_CHECK, "kpe-check", &["kpe-check", "help", ""]);
    assert!(offered.iter().any(|w| w == "merge"), "{offered:?}");
}

#[test]
fn kpe_rules_complete_to_profile_names() {
    if !has_bash() {
        return;
    }
    for sub in ["perft", "show", "play", "engine"] {
        let offered = complete(KPE, "kpe", &["kpe", sub, "--rules", ""]);
        assert_eq!(offered, profile_names(), "kpe {sub} --rules");
    }
    // A dispute names readings to change: every profile but the default.
    // The options are offered too; the values are the rest.
    let offered: Vec<String> = complete(KPE, "kpe", &["kpe", "dispute", ""])
        .into_iter()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let others: Vec<String> = profile_names()
        .into_iter()
        .filter(|n| n != "default")
        .collect();
    assert_eq!(offered, others, "kpe dispute");
}

#[test]
fn completion_names_do_not_limit_what_is_accepted() {
    // Switches in any order are still a profile, as before the names were
    // offered to completion; and the profile names stay out of --help.
    let out = Command::new(KPE)
        .args(["perft", "1", "--rules", "strict-lock,skip-origin"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(KPE)
        .args(["perft", "1", "--rules", "skip-orign"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'skip-orign' for '--rules <PROFILE>': unknown rules switch"),
        "{err}"
    );
    let help = Command::new(KPE_CHECK).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        !help.contains("skip-origin,strict-lock,feed-after-capture"),
        "{help}"
    );
}

#[test]
fn every_shell_gets_a_script() {
    for (bin, name) in [(KPE, "kpe"), (KPE_CHECK, "kpe-check")] {
        for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
            let out = Command::new(bin)
                .args(["completions", shell])
                .output()
                .unwrap();
            assert!(out.status.success(), "{name} completions {shell}");
            let script = String::from_utf8(out.stdout).unwrap();
            assert!(script.contains(name), "{name} completions {shell}");
            // A name only the profile list has (fish escapes the commas
            // and equals signs); elvish and powershell scripts complete no
            // values. Three readings off the default, however it spells them.
            let three = [
                Switch::SkipOrigin,
                Switch::StrictLock,
                Switch::FeedAfterCapture,
            ]
            .into_iter()
            .fold(Profile::DEFAULT, |p, s| p.set(s, !p.has(s)))
            .to_string();
            assert!(
                ["elvish", "powershell"].contains(&shell)
                    || script
                        .replace("\\,", ",")
                        .replace("\\=", "=")
                        .contains(&three),
                "{name} completions {shell}: {three}"
            );
        }
        let out = Command::new(bin)
            .args(["completions", "tcsh"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name} completions tcsh");
    }
}

/// Issue 26: the README's completion line failed in a fresh home, whose
/// completions folder did not exist. The lines (now in the user guide,
/// "Shell completions"), run as written in an empty home, install scripts
/// that bash loads.
#[test]
fn the_guide_completion_lines_work_in_a_fresh_home() {
    if !has_bash() {
        return;
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/GUIDE.md")).unwrap();
    let start = readme
        .find("```sh\nmkdir -p ~/.local/share/bash-completion/completions\n")
        .expect("the guide's completion lines");
    let block = &readme[start + "```sh\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    assert!(block.contains("kpe-check completions bash >"), "{block}");
    let home = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(KPE).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-e", "-c", block])
        .env("HOME", home.path())
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{block}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = home.path().join(".local/share/bash-completion/completions");
    for name in ["kpe", "kpe-check"] {
        let script = dir.join(name);
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-c"])
            .arg(format!("source {} && complete -p {name}", script.display()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The help of the commands that name a reading lists every reading of the
/// readings table, by ID, setting and switch, so a new row shows up there.
#[test]
fn help_texts_list_every_reading_from_the_table() {
    for (command, words) in [
        (
            "adopt",
            &[Switch::reading, Switch::setting] as &[fn(Switch) -> &'static str],
        ),
        ("dispute", &[Switch::reading, Switch::setting, Switch::name]),
    ] {
        let out = Command::new(KPE)
            .args([command, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        for switch in Switch::ALL {
            for word in words {
                let word = word(switch);
                assert!(
                    help.contains(word),
                    "kpe {command} --help lacks `{word}`:\n{help}"
                );
            }
        }
        let ids = Switch::ALL.map(Switch::reading).join(", ");
        assert!(help.contains(&format!("({ids})")), "{help}");
    }
    let out = Command::new(KPE)
        .args(["perft", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let switches = Switch::ALL.map(Switch::name).join(", ");
    assert!(help.contains(&format!("({switches})")), "{help}");
}
