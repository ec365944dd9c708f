//! Values written in files as their text: a pit as its name, a position as
//! its notation, a profile as its switch names.
//!
//! Serialising writes the `Display` string; deserialising reads a string and
//! validates it through `FromStr`, so a bad value comes back as the parse
//! error's message (`expected a string` for a value of another JSON type).

/// Implements `Serialize` through `Display` and `Deserialize` through
/// `FromStr` for each type named.
macro_rules! serde_as_text {
    ($($ty:ty),+ $(,)?) => {$(
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::as_text::Text(std::marker::PhantomData))
            }
        }
    )+};
}

pub(crate) use serde_as_text;

/// The visitor of a value read from a string.
pub(crate) struct Text<T>(pub(crate) std::marker::PhantomData<T>);

impl<T> serde::de::Visitor<'_> for Text<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
        text.parse().map_err(E::custom)
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        let text = std::str::from_utf8(bytes).map_err(E::custom)?;
        self.visit_str(text)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Pit, Position, Profile};

    #[test]
    fn values_round_trip_through_their_text() {
        let pit: Pit = "N3".parse().unwrap();
        assert_eq!(serde_json::to_string(&pit).unwrap(), r#""N3""#);
        assert_eq!(serde_json::from_str::<Pit>(r#""N3""#).unwrap(), pit);
        let start = Position::initial();
        let text = serde_json::to_string(&start).unwrap();
        assert_eq!(text, r#""6,6,6,6/6,6,6,6 S 0/0 ----/----""#);
        assert_eq!(serde_json::from_str::<Position>(&text).unwrap(), start);
        // A profile is written relative to the default, whatever it is:
        // two settings away from it, two words.
        use crate::profile::Switch::{SkipOrigin, StrictLock};
        let profile = Profile::DEFAULT.flipped(SkipOrigin).flipped(StrictLock);
        let text = serde_json::to_string(&profile).unwrap();
        assert_eq!(
            text,
            format!("{:?}", profile.written_against(Profile::DEFAULT))
        );
        assert_eq!(text.matches(',').count(), 1, "{text}");
        assert_eq!(serde_json::from_str::<Profile>(&text).unwrap(), profile);
        let both = Profile::with(&[SkipOrigin, StrictLock]);
        assert_eq!(
            both.written_against(Profile::ALL_OFF),
            "skip-origin,strict-lock"
        );
    }

    #[test]
    fn bad_text_gives_the_parse_error() {
        let err = serde_json::from_str::<Profile>(r#""skip-orign""#).unwrap_err();
        let parse = "skip-orign".parse::<Profile>().unwrap_err();
        assert!(err.to_string().starts_with(&parse.to_string()), "{err}");
        let err = serde_json::from_str::<Pit>("5").unwrap_err();
        assert!(err.to_string().contains("expected a string"), "{err}");
        let err = serde_yaml::from_str::<Position>("[1, 2]").unwrap_err();
        assert!(err.to_string().contains("expected a string"), "{err}");
    }
}
