//! A sink that keeps nothing, so that only the checking is timed; shared
//! by the check bench and `examples/check_speed.rs`.

use std::hint::black_box;
use std::io;

use kpe::reporter::{InputError, Run, Sink, Summary, UnitResult};

/// Results go nowhere.
pub struct Discard;

impl Sink for Discard {
    fn begin(&mut self, _: &Run) -> io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        black_box(unit);
        Ok(())
    }
    fn finish(&mut self, _: &Summary) -> io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _: &InputError) -> io::Result<()> {
        Ok(())
    }
}
