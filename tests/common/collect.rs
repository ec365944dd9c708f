//! A sink that keeps every unit of a live run: the run itself keeps none
//! (issue 25), so the tests read them from here.

use kpe::live::LiveReport;
use kpe::reporter::{InputError, Run, Sink, Summary, UnitResult};

/// Keeps every unit it is given, in order.
#[derive(Default)]
pub struct Collect(pub Vec<UnitResult>);

impl Sink for Collect {
    fn begin(&mut self, _: &Run) -> std::io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, unit: &UnitResult) -> std::io::Result<()> {
        self.0.push(unit.clone());
        Ok(())
    }
    fn finish(&mut self, _: &Summary) -> std::io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _: &InputError) -> std::io::Result<()> {
        Ok(())
    }
}

/// A live run's report with the units its sink was given.
#[allow(dead_code)]
pub struct Checked {
    pub report: LiveReport,
    pub units: Vec<UnitResult>,
}

impl std::ops::Deref for Checked {
    type Target = LiveReport;
    fn deref(&self) -> &LiveReport {
        &self.report
    }
}

/// Checks `manifest` (read from `path`) with `options`, keeping the units.
#[allow(dead_code)]
pub fn checked(
    manifest: &kpe::live::Manifest,
    path: &std::path::Path,
    options: &kpe::live::LiveOptions,
) -> Checked {
    let mut sink = Collect::default();
    let report = kpe::live::check_engine(manifest, path, options, &mut sink).unwrap();
    Checked {
        report,
        units: sink.0,
    }
}
