//! Command-line values whose names a shell completes: rules profiles.
//!
//! Shared by `kpe` and `kpe-check` (each includes this file). A value is
//! read through its `FromStr`, as before, so any spelling the type accepts
//! still works (`strict-lock,skip-origin` as well as the canonical
//! `skip-origin,strict-lock`); the names are only offered to the completion
//! scripts of `kpe completions` and `kpe-check completions`, and kept out of
//! `--help` by `hide_possible_values`.

use std::ffi::OsStr;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::OnceLock;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use kpe::Profile;

/// A parser of `T` from its text that offers `names` to completion.
pub struct Completed<T> {
    names: &'static [String],
    /// Whether an empty value is refused (a profile: `--rules ''` is more
    /// likely an unset variable than a wish for the default).
    refuse_empty: bool,
    value: PhantomData<fn() -> T>,
}

impl<T> Clone for Completed<T> {
    fn clone(&self) -> Self {
        Completed {
            names: self.names,
            refuse_empty: self.refuse_empty,
            value: PhantomData,
        }
    }
}

impl<T> TypedValueParser for Completed<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let refuse_empty = self.refuse_empty;
        StringValueParser::new()
            .try_map(move |text| {
                if refuse_empty && text.trim().is_empty() {
                    return Err(
                        "an empty profile: name one (`default` for the default profile)".into(),
                    );
                }
                if let Some(twice) = repeated_switch(&text) {
                    return Err(format!(
                        "`{twice}` is given twice in `{text}`: name each switch once"
                    )
                    .into());
                }
                text.parse::<T>().map_err(Into::into)
            })
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.names
                .iter()
                .map(|name| PossibleValue::new(name.as_str())),
        ))
    }
}

/// A switch named twice in one profile (`skip-origin,skip-origin`): the
/// profile types would take it as once, and a repeated word is more often
/// a typo for another switch than meant.
fn repeated_switch(text: &str) -> Option<&str> {
    for profile in text.split('|') {
        let words: Vec<&str> = profile.split(',').map(str::trim).collect();
        for (k, word) in words.iter().enumerate() {
            if !word.is_empty() && words[..k].contains(word) {
                return Some(word);
            }
        }
    }
    None
}

/// The names of all 32 profiles, `default` first.
fn profile_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| Profile::all().map(|p| p.to_string()).collect())
}

/// A rules profile (`--rules`): the 32 profile names.
#[allow(dead_code)]
pub fn profile() -> Completed<Profile> {
    Completed {
        names: profile_names(),
        refuse_empty: true,
        value: PhantomData,
    }
}

/// The readings to dispute (`kpe dispute`): the names of the 31 profiles
/// other than the default, each of which names the readings it changes.
#[allow(dead_code)]
pub fn switches() -> Completed<kpe::dispute::Disputed> {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    Completed {
        names: NAMES.get_or_init(|| {
            profile_names()
                .iter()
                .filter(|n| *n != "default")
                .cloned()
                .collect()
        }),
        refuse_empty: false,
        value: PhantomData,
    }
}

/// The profiles to certify (`kpe-check --profiles`): `all` or one of the 32.
#[allow(dead_code)]
pub fn profiles() -> Completed<kpe::live::Profiles> {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        std::iter::once("all".to_owned())
            .chain(profile_names().iter().cloned())
            .collect()
    });
    Completed {
        names,
        refuse_empty: false,
        value: PhantomData,
    }
}
