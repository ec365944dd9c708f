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
use kpe::{Profile, Switch};

/// A parser of `T` from its text that offers `names` to completion.
pub struct Completed<T> {
    names: &'static [String],
    value: PhantomData<fn() -> T>,
}

impl<T> Clone for Completed<T> {
    fn clone(&self) -> Self {
        Completed {
            names: self.names,
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
        StringValueParser::new()
            .try_map(|text| {
                if let Some(problem) = list_problem(&text) {
                    return Err(problem.into());
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

/// What is wrong with the shape of a profile list on the command line:
/// an empty value (`--rules ''`: write `default`), an empty name
/// (`skip-origin,,strict-lock`, a comma at either end), a name with spaces
/// around it (`'skip-origin, strict-lock'`), or one reading named twice,
/// under one name (`skip-origin,skip-origin`) or two (`I1,origin`): the
/// profile types would take each of these quietly, and each is more often
/// a slip than meant. Files (transcripts, manifests) are read by their own
/// rules.
fn list_problem(text: &str) -> Option<String> {
    let shown = text.escape_debug();
    if text.trim().is_empty() {
        return Some(
            "an empty profile: write `default` for the default, or name the switches".to_owned(),
        );
    }
    for profile in text.split('|') {
        let words: Vec<&str> = profile.split(',').collect();
        for (k, word) in words.iter().enumerate() {
            if word.is_empty() {
                return Some(format!(
                    "an empty name between commas in `{shown}`: join the names with single commas"
                ));
            }
            if word.trim() != *word {
                return Some(format!(
                    "`{}` has a space around it in `{shown}`: join the names with commas alone, no spaces",
                    word.escape_debug()
                ));
            }
            if words[..k].contains(word) {
                return Some(format!(
                    "`{word}` is given twice in `{shown}`: name each switch once"
                ));
            }
            if let Some(switch) = switch_of(word)
                && let Some(other) = words[..k].iter().find(|w| switch_of(w) == Some(switch))
            {
                return Some(format!(
                    "`{other}` and `{word}` name one reading in `{shown}` ({}, `{}`): name each reading once",
                    switch.reading(),
                    switch.setting()
                ));
            }
        }
    }
    None
}

/// The switch a word of a profile list names: its reading ID, setting,
/// switch name, or `setting=value`.
fn switch_of(word: &str) -> Option<kpe::Switch> {
    let name = word.split_once('=').map_or(word, |(setting, _)| setting);
    kpe::Switch::named(name).or_else(|| name.parse().ok())
}

/// The names of every profile, `default` first.
fn profile_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| Profile::all().map(|p| p.to_string()).collect())
}

/// A rules profile (`--rules`): every profile's name.
#[allow(dead_code)]
pub fn profile() -> Completed<Profile> {
    Completed {
        names: profile_names(),
        value: PhantomData,
    }
}

/// The readings to dispute (`kpe dispute`): the names of every profile
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
        value: PhantomData,
    }
}

/// The profiles to certify (`kpe-check --profiles`): `all` or any one.
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
        value: PhantomData,
    }
}

/// The words that name each reading, from the readings table: `I1, I2`,
/// `origin, lock`, `skip-origin, strict-lock`.
fn reading_words() -> [String; 3] {
    [Switch::reading, Switch::setting, Switch::name].map(|word| Switch::ALL.map(word).join(", "))
}

/// The help of `kpe adopt READING`.
#[allow(dead_code)]
pub fn reading_help() -> String {
    let [ids, settings, _] = reading_words();
    format!("The reading: its ID ({ids}), setting ({settings}) or switch name")
}

/// The help of `kpe dispute SWITCH[,SWITCH...]`.
#[allow(dead_code)]
pub fn disputed_help() -> String {
    let [ids, settings, switches] = reading_words();
    format!(
        "The disputed readings, joined by commas: reading IDs ({ids}), settings ({settings}) \
         or switch names ({switches}). Each is turned to its other value than the default's \
         and compared with the default."
    )
}

/// The help of `kpe perft --rules`.
#[allow(dead_code)]
pub fn profile_help() -> String {
    let [_, _, switches] = reading_words();
    format!("Rules profile: `default` or switches joined by commas ({switches})")
}
