//! An engine that answers from a table: the bench binary itself, started
//! by kpe-check with [`FLAG`] as its first argument. Its own time per
//! request is a line read, a hash lookup and a line written, so a run
//! against it shows kpe-check's own time per request, and the time the
//! pipes between two processes take, with next to nothing of the engine's.
//!
//! The table is made by a first run against [`record`]: the reference
//! engine (`kpe engine`'s code, in the bench process) answering, each
//! request line kept with its reply line. The same seed asks the same
//! questions, so a second run with the same options finds every one.

use std::collections::HashMap;
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::Path;

use kpe::live::{Manifest, ServeOptions, serve};

/// The first argument that makes the bench binary an engine.
pub const FLAG: &str = "--kpe-bench-engine";

/// A manifest that starts this binary as an engine: `record` (the
/// reference engine, writing its table to `table`) or `table` (answering
/// from it).
pub fn manifest(mode: &str, table: &Path) -> Manifest {
    let exe = std::env::current_exe().expect("the bench binary's path");
    serde_json::from_value(serde_json::json!({
        "format": "kpe-engine",
        "version": 1,
        "command": [exe, FLAG, mode, table],
    }))
    .expect("a valid manifest")
}

/// Runs the engine if this process was started as one (with [`FLAG`]):
/// `true` when it was, and has finished.
pub fn run_if_asked() -> bool {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) != Some(FLAG) {
        return false;
    }
    let (Some(mode), Some(table)) = (args.get(2), args.get(3)) else {
        eprintln!("usage: {FLAG} record|table TABLE");
        std::process::exit(2);
    };
    let done = match mode.as_str() {
        "record" => record(Path::new(table)),
        "table" => answer(Path::new(table)),
        _ => {
            eprintln!("unknown mode {mode}: record or table");
            std::process::exit(2);
        }
    };
    if let Err(e) = done {
        eprintln!("{mode}: {e}");
        std::process::exit(1);
    }
    true
}

/// Keeps each line that passes through.
struct Tee<T> {
    inner: T,
    lines: Vec<u8>,
}

impl<T: Read> Read for Tee<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.lines.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

impl<T: Write> Write for Tee<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.lines.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The reference engine, its requests and replies kept: on `quit` (or the
/// end of its input), each request but `quit` is written to `table` with
/// its reply, one JSON pair a line.
fn record(table: &Path) -> io::Result<()> {
    let mut input = Tee {
        inner: io::stdin().lock(),
        lines: Vec::new(),
    };
    let mut output = Tee {
        inner: io::stdout().lock(),
        lines: Vec::new(),
    };
    serve(
        io::BufReader::new(&mut input),
        &mut output,
        ServeOptions::default(),
    )?;
    let requests = String::from_utf8_lossy(&input.lines).into_owned();
    let replies = String::from_utf8_lossy(&output.lines).into_owned();
    let requests = requests
        .lines()
        .filter(|line| !line.contains(r#""type":"quit""#));
    let mut out = BufWriter::new(std::fs::File::create(table)?);
    for (request, reply) in requests.zip(replies.lines()) {
        serde_json::to_writer(&mut out, &(request, reply))?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Answers each request line with the reply the table holds for it (an
/// `error` reply if none), until `quit` or the end of the input.
fn answer(table: &Path) -> io::Result<()> {
    let text = std::fs::read_to_string(table)?;
    let mut replies: HashMap<String, String> = HashMap::new();
    for line in text.lines() {
        let (request, reply): (String, String) = serde_json::from_str(line)?;
        replies.insert(request, reply);
    }
    let mut output = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line?;
        match replies.get(line.as_str()) {
            Some(reply) => writeln!(output, "{reply}")?,
            None if line.contains(r#""type":"quit""#) => return Ok(()),
            None => writeln!(output, r#"{{"type":"error","message":"not in the table"}}"#)?,
        }
        output.flush()?;
    }
    Ok(())
}
