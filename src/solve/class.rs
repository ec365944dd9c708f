//! Which profiles share a table: the readings that change play once both
//! players' captures are unlocked.

use std::fmt;

use crate::profile::{Profile, READINGS, SolverRole, Switch};

/// The one reading whose two values share a table (its row's solver role is
/// [`SolverRole::Shared`]; today I2, `strict-lock`). The layer format
/// names a class by the two profiles it covers, so exactly one such reading
/// is what the format can say.
const SHARED: Switch = {
    let mut found = None;
    let mut k = 0;
    while k < READINGS.len() {
        if matches!(READINGS[k].matters.solver, SolverRole::Shared) {
            assert!(
                found.is_none(),
                "the layer format covers one shared reading"
            );
            found = Some(Switch::ALL[k]);
        }
        k += 1;
    }
    match found {
        Some(s) => s,
        None => panic!("the layer format covers one shared reading"),
    }
};

/// `profile` with every switch off whose role is [`SolverRole::Shared`],
/// and those whose role is [`SolverRole::Uncovered`] too if `uncovered`.
const fn without(mut profile: Profile, uncovered: bool) -> Profile {
    let mut k = 0;
    while k < READINGS.len() {
        let off = match READINGS[k].matters.solver {
            SolverRole::Shared => true,
            SolverRole::Uncovered { .. } => uncovered,
            SolverRole::Apart => false,
        };
        if off {
            profile = profile.set(Switch::ALL[k], false);
        }
        k += 1;
    }
    profile
}

/// The switches no table covers the second value of, with why.
fn uncovered() -> impl Iterator<Item = (Switch, &'static str)> {
    Switch::ALL
        .into_iter()
        .filter_map(|s| match s.row().matters.solver {
            SolverRole::Uncovered { why } => Some((s, why)),
            _ => None,
        })
}

/// The switches whose values have tables of their own, in reading order.
fn apart() -> impl Iterator<Item = Switch> {
    Switch::ALL
        .into_iter()
        .filter(|s| s.row().matters.solver == SolverRole::Apart)
}

/// The profiles that play alike once both locks are open, named by the one
/// among them with `strict-lock` off.
///
/// Each reading's row of the readings table ([`READINGS`]) says what the
/// tables do with it ([`SolverRole`]). Once both players have used all four
/// pits, I2 (`strict-lock`, which moves of a locked player may capture) has
/// nothing left to decide, so a profile and the same profile with
/// `strict-lock` flipped share a table. The readings that change moves,
/// captures or the end once both locks are open (I1, I3, I4) are apart:
/// each combination of their values is a class of its own. I5
/// (`end-on-repetition`) makes a value depend on the game's history, not on
/// the position: no table covers it (spec/SOLVE.md).
///
/// ```
/// use kpe::solve::Class;
/// use kpe::{Profile, Switch};
/// let skip = Profile::with(&[Switch::SkipOrigin]);
/// let class = Class::of(skip.set(Switch::StrictLock, true))?;
/// assert_eq!(class.profile(), skip);
/// assert_eq!(class.covers(), [skip, skip.set(Switch::StrictLock, true)]);
/// assert!(Class::of(skip.set(Switch::EndOnRepetition, true)).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class(Profile);

impl Class {
    /// The default reading's class: the default profile with `strict-lock`
    /// off (and, should the default end games on repetition, which no table
    /// covers, with `end-on-repetition` off too).
    pub const DEFAULT: Class = Class(without(Profile::DEFAULT, true));

    /// The class of `profile`.
    ///
    /// # Errors
    ///
    /// [`NotCovered`] when `profile` has `end-on-repetition` on.
    pub fn of(profile: Profile) -> Result<Class, NotCovered> {
        if uncovered().any(|(s, _)| profile.has(s)) {
            return Err(NotCovered { profile });
        }
        Ok(Class(without(profile, false)))
    }

    /// The profile the table is built with: the class's profile with
    /// `strict-lock` off.
    #[must_use]
    pub const fn profile(self) -> Profile {
        self.0
    }

    /// The two profiles the class covers: without and with `strict-lock`.
    #[must_use]
    pub fn covers(self) -> [Profile; 2] {
        [self.0, self.0.set(SHARED, true)]
    }

    /// Every class, in [`Profile::all`] order (whatever the default).
    pub fn all() -> impl Iterator<Item = Class> {
        Profile::all().filter(|&p| without(p, true) == p).map(Class)
    }
}

/// A class is named by the values of the settings that make it
/// (`origin=sown,feeding=by-sowing,unfeedable=lapses`): a name that means
/// the same whatever the default is, so a table built before `kpe adopt`
/// is never read as the new default's (layer format 2, spec/SOLVE.md).
impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = apart().map(|s| s.assignment(self.0)).collect();
        f.write_str(&words.join(","))
    }
}

impl Class {
    /// The name layer format 1 gave the class: its profile written against
    /// the all-off profile, the only default released with that format
    /// (`default`, `skip-origin`, ...).
    #[must_use]
    pub fn name_in_format_1(self) -> String {
        self.0.written_against(Profile::ALL_OFF)
    }
}

/// A profile that no table covers: one with a switch on whose row says
/// [`SolverRole::Uncovered`] (`end-on-repetition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotCovered {
    /// The profile asked for.
    pub profile: Profile,
}

impl NotCovered {
    /// The covered profile nearest the one asked for: the same readings
    /// with every uncovered one at its first value (`repetition=continues`).
    #[must_use]
    pub const fn nearest(self) -> Profile {
        let mut nearest = self.profile;
        let mut k = 0;
        while k < READINGS.len() {
            if matches!(READINGS[k].matters.solver, SolverRole::Uncovered { .. }) {
                nearest = nearest.set(Switch::ALL[k], false);
            }
            k += 1;
        }
        nearest
    }
}

impl fmt::Display for NotCovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why: Vec<String> = uncovered()
            .filter(|&(s, _)| self.profile.has(s))
            .map(|(s, why)| format!("under {} ({}, {}) {why}", s.name(), s.reading(), s.rule()))
            .collect();
        write!(
            f,
            "no table covers `{}`: {} (spec/SOLVE.md); the same readings without it are `--rules {}`",
            self.profile,
            why.join(", and "),
            self.nearest()
        )
    }
}

impl std::error::Error for NotCovered {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_without_repetition_is_covered_by_exactly_one_class() {
        let classes: Vec<Class> = Class::all().collect();
        let apart = apart().count();
        assert_eq!(classes.len(), 1 << apart);
        assert!(classes.contains(&Class::DEFAULT));
        for profile in Profile::all() {
            let owners: Vec<&Class> = classes
                .iter()
                .filter(|c| c.covers().contains(&profile))
                .collect();
            let not_covered: Vec<(Switch, &str)> =
                uncovered().filter(|&(s, _)| profile.has(s)).collect();
            if !not_covered.is_empty() {
                assert!(owners.is_empty(), "{profile}");
                let e = Class::of(profile).unwrap_err();
                // It says why, for each reading no table covers.
                for (s, why) in not_covered {
                    let under = format!("under {} ({}, {}) {why}", s.name(), s.reading(), s.rule());
                    assert!(e.to_string().contains(&under), "{e}");
                }
                // It names the profile to ask for instead, which is covered.
                let nearest = e.nearest();
                assert!(
                    e.to_string().ends_with(&format!("`--rules {nearest}`")),
                    "{e}"
                );
                assert_eq!(
                    Class::of(nearest).unwrap().covers()[0],
                    nearest.set(SHARED, false)
                );
            } else {
                assert_eq!(owners, [&Class::of(profile).unwrap()], "{profile}");
            }
        }
    }

    #[test]
    fn a_class_is_named_by_its_settings_whatever_the_default() {
        let skip = Class::of(Profile::with(&[Switch::SkipOrigin])).unwrap();
        assert_eq!(
            skip.to_string(),
            "origin=skipped,feeding=by-sowing,unfeedable=lapses"
        );
        assert_eq!(skip.name_in_format_1(), "skip-origin");
        let names: std::collections::BTreeSet<String> =
            Class::all().map(|c| c.to_string()).collect();
        assert_eq!(names.len(), Class::all().count());
        // The name reads back as the class's profile under any default.
        for class in Class::all() {
            for default in Profile::all() {
                let read = Profile::read_against(&class.to_string(), default).unwrap();
                let read = NotCovered { profile: read }.nearest();
                assert_eq!(Class::of(read), Ok(class));
            }
        }
    }
}
