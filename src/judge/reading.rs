//! Naming the reading: which rules profiles explain everything an engine
//! did, when it departs from the profile it claims.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::profile::{Profile, Switch};

use super::rules::RuleSet;

/// Something whose units can be checked again under another profile: a
/// transcript file, or the recorded answers of a live engine.
pub trait Recheck {
    /// Why a re-run could not be done.
    type Error;

    /// Re-checks every unit under `profile`: true when all conform.
    ///
    /// # Errors
    ///
    /// When the units cannot be re-run (e.g. the input went away).
    fn conforms_under(&mut self, profile: Profile) -> Result<bool, Self::Error>;

    /// The same for several profiles: one answer per profile, in order.
    /// Override it when one pass can check many profiles.
    ///
    /// # Errors
    ///
    /// As [`Recheck::conforms_under`].
    fn conforms_under_each(&mut self, profiles: &[Profile]) -> Result<Vec<bool>, Self::Error> {
        profiles.iter().map(|&p| self.conforms_under(p)).collect()
    }

    /// The readings these units cannot tell apart, kept as claimed:
    /// [`name_reading`] re-checks no profile that differs there. None by
    /// default.
    fn kept_as_claimed(&self) -> &[Switch] {
        &[]
    }
}

/// The profiles under which everything conforms, when the claimed one does
/// not explain it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reading {
    /// The profile the engine claimed.
    pub claimed: Profile,
    /// Every profile under which all units conform, closest to the claimed
    /// one first (fewest switches changed), then in [`Profile::all`] order.
    pub conforms_under: Vec<Profile>,
    /// How many profiles other than the claimed one were re-checked: every
    /// other profile, or fewer when some readings are kept as claimed.
    pub rechecked: usize,
    /// The readings kept as claimed, because the units cannot tell them
    /// apart ([`Recheck::kept_as_claimed`]). Serialised as switch names.
    #[serde(serialize_with = "switch_names", deserialize_with = "switches_named")]
    #[schemars(with = "Vec<String>")]
    pub kept_as_claimed: Vec<Switch>,
    /// When no profile explains everything: the profile that leaves the
    /// fewest units unexplained, and the rules left unexplained under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<Nearest>,
    /// The readings that the engine's answers could not separate, even
    /// after probing, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unseparated: Option<String>,
    /// Whether some documented reading explains everything (filled by
    /// [`Reading::stated`], for the JSON report).
    #[serde(default)]
    pub explained: bool,
    /// The explaining profiles that change the fewest switches (filled by
    /// [`Reading::stated`]).
    #[serde(default)]
    pub closest: Vec<Profile>,
    /// The reading as one sentence, as the human report says it (filled by
    /// [`Reading::stated`]).
    #[serde(default)]
    pub text: String,
}

/// The closest profile when none explains everything.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Nearest {
    /// The profile.
    pub profile: Profile,
    /// Units it leaves unexplained.
    pub units: u64,
    /// The rules left unexplained under it, with how many units each.
    pub rules: Vec<RuleCount>,
    /// The best profile that does not share the nearest's departures from
    /// the claimed one (some switch the nearest changes is left as
    /// claimed), ties broken as for the nearest, and how many units it
    /// leaves: how far ahead the nearest's diagnosis is
    /// ([`Nearest::weak`]). When the nearest is the claimed profile, the
    /// best of the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<NextProfile>,
}

/// The runner-up to the [`Nearest`] profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NextProfile {
    /// The profile.
    pub profile: Profile,
    /// Units it leaves unexplained.
    pub units: u64,
}

impl Nearest {
    /// Whether the nearest profile wins by too little to say much: by
    /// fewer than 2 units, or by less than a tenth of the units it leaves
    /// itself (spec/REPORT.md, "Naming the reading"). Such a win is weak
    /// evidence, and the report says so.
    #[must_use]
    pub fn weak(&self) -> bool {
        self.next.is_some_and(|next| {
            let margin = next.units.saturating_sub(self.units);
            margin < 2 || margin * 10 < self.units
        })
    }
}

fn switch_names<S: serde::Serializer>(switches: &[Switch], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(switches.iter().map(|switch| switch.name()))
}

fn switches_named<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Switch>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|name| name.parse().map_err(serde::de::Error::custom))
        .collect()
}

impl Reading {
    /// The reading with its [`Reading::explained`], [`Reading::closest`]
    /// and [`Reading::text`] filled in from the rest.
    #[must_use]
    pub fn stated(mut self) -> Reading {
        self.explained = self.explained();
        self.closest = self.closest();
        self.text = self.to_string();
        self
    }

    /// Whether some documented reading explains everything.
    #[must_use]
    pub fn explained(&self) -> bool {
        !self.conforms_under.is_empty()
    }

    /// When the explaining profiles are exactly those that agree on some
    /// switches, whatever the others: the switches left free (the readings
    /// the units do not tell apart).
    #[must_use]
    pub fn free_switches(&self) -> Option<Vec<Switch>> {
        let first = *self.conforms_under.first()?;
        let fixed: Vec<Switch> = Switch::ALL
            .into_iter()
            .filter(|&s| self.conforms_under.iter().all(|p| p.has(s) == first.has(s)))
            .collect();
        let cube = Profile::all()
            .filter(|p| fixed.iter().all(|&s| p.has(s) == first.has(s)))
            .count();
        (cube == self.conforms_under.len()).then(|| {
            Switch::ALL
                .into_iter()
                .filter(|s| !fixed.contains(s))
                .collect()
        })
    }

    /// The explaining profiles that change the fewest switches.
    #[must_use]
    pub fn closest(&self) -> Vec<Profile> {
        closest(self.claimed, &self.conforms_under)
    }
}

impl Reading {
    /// [`Reading::stated`], the sentence counting what was checked as
    /// `noun`s (`game` for a transcript, whose units are its games).
    #[must_use]
    pub fn stated_in(mut self, noun: &str) -> Reading {
        self = self.stated();
        self.text = Said {
            reading: &self,
            noun,
        }
        .to_string();
        self
    }

    /// The sentence the reports print: [`Reading::text`], or when it is
    /// not filled in, the sentence counting units.
    #[must_use]
    pub fn sentence(&self) -> String {
        if self.text.is_empty() {
            self.to_string()
        } else {
            self.text.clone()
        }
    }
}

impl fmt::Display for Reading {
    /// `conforms under: skip-origin (I1 ...)`, or that no documented reading
    /// explains it, counting units.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Said {
            reading: self,
            noun: "unit",
        }
        .fmt(f)
    }
}

/// A reading as a sentence, counting `noun`s.
struct Said<'a> {
    reading: &'a Reading,
    noun: &'a str,
}

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = self.noun;
        let count = |n: u64| format!("{n} {noun}{}", if n == 1 { "" } else { "s" });
        let this = self.reading;
        if !this.explained() {
            f.write_str("no documented reading explains it: ")?;
            match this.rechecked {
                0 => f.write_str("no other profile was re-checked")?,
                1 => f.write_str("it diverges under the one other profile re-checked")?,
                n => write!(
                    f,
                    "it diverges under every one of the {n} other profiles re-checked"
                )?,
            }
            if !this.kept_as_claimed.is_empty() {
                let names: Vec<&str> = this.kept_as_claimed.iter().map(|s| s.reading()).collect();
                write!(
                    f,
                    " ({} kept as claimed, which these checks cannot tell apart)",
                    names.join(", ")
                )?;
            }
            if let Some(nearest) = &this.nearest {
                let mut rules: Vec<String> = nearest
                    .rules
                    .iter()
                    .map(|r| format!("{} ({})", r.rule, count(r.units)))
                    .collect();
                if rules.is_empty() {
                    // Units that diverged on nothing a rule decides.
                    rules.push(count(nearest.units));
                }
                if nearest.profile == this.claimed {
                    write!(
                        f,
                        "; closest: the claimed profile itself, which leaves {} unexplained",
                        rules.join(", ")
                    )?;
                } else {
                    write!(
                        f,
                        "; closest: conforms under {} except {}",
                        nearest.profile,
                        rules.join(", ")
                    )?;
                    if let Some(next) = nearest.next.filter(|_| nearest.weak()) {
                        let next_name = if next.profile == this.claimed {
                            "the claimed profile".to_owned()
                        } else {
                            next.profile.to_string()
                        };
                        match next.units.saturating_sub(nearest.units) {
                            0 => write!(
                                f,
                                " (weak evidence: {next_name} leaves as many, {})",
                                count(next.units)
                            )?,
                            more => write!(
                                f,
                                " (weak evidence: {next_name} leaves {}, only {more} more)",
                                count(next.units)
                            )?,
                        }
                    }
                }
            }
            return Ok(());
        }
        let near = this.closest();
        let names: Vec<String> = near.iter().map(ToString::to_string).collect();
        write!(f, "conforms under: {}", names.join(" or "))?;
        if let [only] = near.as_slice() {
            write!(f, " ({})", switch_summary(this.claimed, *only))?;
        }
        let more = this.conforms_under.len() - near.len();
        if let Some(free) = this.free_switches().filter(|f| !f.is_empty()) {
            let names: Vec<&str> = free.iter().map(|s| s.reading()).collect();
            write!(
                f,
                ", whatever the readings {}, which these games do not tell apart",
                names.join(", ")
            )?;
        } else if more > 0 {
            write!(
                f,
                "; also under {more} other profile{}",
                if more == 1 { "" } else { "s" }
            )?;
        }
        if let Some(why) = &this.unseparated {
            write!(f, "; {why}")?;
        }
        Ok(())
    }
}

/// What changes from `from` to `to`, reading by reading: `I1: a sowing of
/// 8+ stones skips its origin pit`.
#[must_use]
pub fn switch_summary(from: Profile, to: Profile) -> String {
    let parts: Vec<String> = Switch::ALL
        .iter()
        .filter(|&&s| from.has(s) != to.has(s))
        .map(|&s| format!("{}: {}", s.reading(), s.says(to.has(s))))
        .collect();
    if parts.is_empty() {
        "the same profile".to_owned()
    } else {
        parts.join("; ")
    }
}

/// Re-checks `units` under every profile but `claimed` (that agrees with
/// it on the readings [`Recheck::kept_as_claimed`]) and reports those under
/// which everything conforms.
///
/// # Errors
///
/// The first error of a re-run.
pub fn name_reading<R: Recheck + ?Sized>(
    claimed: Profile,
    units: &mut R,
) -> Result<Reading, R::Error> {
    let kept_as_claimed = units.kept_as_claimed().to_vec();
    let others: Vec<Profile> = Profile::all()
        .filter(|&p| p != claimed)
        .filter(|&p| kept_as_claimed.iter().all(|&s| p.has(s) == claimed.has(s)))
        .collect();
    let rechecked = others.len();
    let verdicts = units.conforms_under_each(&others)?;
    let mut conforms_under: Vec<Profile> = others
        .into_iter()
        .zip(verdicts)
        .filter_map(|(p, ok)| ok.then_some(p))
        .collect();
    conforms_under.sort_by_key(|&p| distance(claimed, p));
    Ok(Reading {
        claimed,
        conforms_under,
        rechecked,
        kept_as_claimed,
        nearest: None,
        unseparated: None,
        explained: false,
        closest: Vec::new(),
        text: String::new(),
    }
    .stated())
}

/// The reading of an engine claiming `claimed`, from how well each
/// re-checked profile explains its units (live mode, transcripts when no
/// profile explains every game, and `kpe-check merge` over shard reports):
/// the profiles that leave nothing unexplained, or else the nearest one
/// with what it leaves ([`nearest`]). `kept_as_claimed` are the readings
/// the units cannot tell apart, which no explanation varies.
#[must_use]
pub fn reading_from(
    claimed: Profile,
    explanations: &[Explanation],
    kept_as_claimed: &[Switch],
) -> Reading {
    let mut conforms_under: Vec<Profile> = explanations
        .iter()
        .filter(|e| e.units == 0 && e.profile != claimed)
        .map(|e| e.profile)
        .collect();
    conforms_under.sort_by_key(|&p| (distance(claimed, p), all_order(p)));
    let nearest = if conforms_under.is_empty() {
        nearest(claimed, explanations)
    } else {
        None
    };
    Reading {
        claimed,
        conforms_under,
        rechecked: explanations.iter().filter(|e| e.profile != claimed).count(),
        kept_as_claimed: kept_as_claimed.to_vec(),
        nearest,
        unseparated: None,
        explained: false,
        closest: Vec::new(),
        text: String::new(),
    }
    .stated()
}

/// The profile of `explanations` that leaves the fewest units unexplained;
/// of those, the one that changes the fewest switches from `claimed` (so
/// the claimed profile wins every tie), then the first in
/// [`Profile::all`] order (spec/REPORT.md, "Naming the reading").
#[must_use]
pub fn nearest(claimed: Profile, explanations: &[Explanation]) -> Option<Nearest> {
    let rank = |e: &&Explanation| (e.units, distance(claimed, e.profile), all_order(e.profile));
    let best = explanations.iter().min_by_key(rank)?;
    // The diagnosis is the switches the nearest changes: the runner-up is
    // the best profile that keeps one of them as claimed (a profile that
    // changes them too, and more the units do not tell apart, backs it).
    let changed: Vec<Switch> = Switch::ALL
        .into_iter()
        .filter(|&s| best.profile.has(s) != claimed.has(s))
        .collect();
    let next = explanations
        .iter()
        .filter(|e| e.profile != best.profile)
        .filter(|e| {
            changed.is_empty() || changed.iter().any(|&s| e.profile.has(s) == claimed.has(s))
        })
        .min_by_key(rank)
        .map(|e| NextProfile {
            profile: e.profile,
            units: e.units,
        });
    Some(Nearest {
        profile: best.profile,
        units: best.units,
        rules: best.rules.clone(),
        next,
    })
}

/// Where `profile` comes in [`Profile::all`].
fn all_order(profile: Profile) -> usize {
    Profile::all()
        .position(|p| p == profile)
        .unwrap_or(usize::MAX)
}

/// What one unit's answers leave unexplained: the profiles under which
/// some answer of the unit is not the rules' answer, grouped by the rules
/// that decide the answers left. A shard's JSON report carries them on
/// each unit, so that `kpe-check merge` counts exactly the units the whole
/// run keeps (a shard runs some that the whole run's stopping rules drop).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unexplained {
    /// The profiles, in [`Profile::all`] order.
    pub profiles: Vec<Profile>,
    /// The rules that decide the answers they leave unexplained (none for
    /// a unit that diverged on something its answers do not show).
    pub rules: Vec<String>,
}

/// A unit's [`Unexplained`] records from the rules it breaks under each
/// profile that leaves it unexplained: profiles with the same rules share
/// a record.
#[must_use]
pub fn unexplained(broken: &[(Profile, RuleSet)]) -> Vec<Unexplained> {
    let mut groups: Vec<(RuleSet, Vec<Profile>)> = Vec::new();
    for &(profile, rules) in broken {
        match groups.iter_mut().find(|(r, _)| *r == rules) {
            Some((_, profiles)) => profiles.push(profile),
            None => groups.push((rules, vec![profile])),
        }
    }
    groups
        .into_iter()
        .map(|(rules, mut profiles)| {
            profiles.sort_by_key(|&p| all_order(p));
            Unexplained {
                profiles,
                rules: rules.iter().map(str::to_owned).collect(),
            }
        })
        .collect()
}

/// How well each of some profiles explains a run's units, counted unit by
/// unit: the one count both modes and `kpe-check merge` make.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    explanations: Vec<Explanation>,
}

impl Tally {
    /// A tally of `profiles`, each leaving nothing unexplained yet.
    #[must_use]
    pub fn new(profiles: impl IntoIterator<Item = Profile>) -> Tally {
        Tally {
            explanations: profiles
                .into_iter()
                .map(|profile| Explanation {
                    profile,
                    units: 0,
                    rules: Vec::new(),
                })
                .collect(),
        }
    }

    /// `profile`'s explanation, added (leaving nothing unexplained) if it
    /// is not in the tally yet.
    fn slot(&mut self, profile: Profile) -> &mut Explanation {
        let at = match self.explanations.iter().position(|e| e.profile == profile) {
            Some(at) => at,
            None => {
                self.explanations.push(Explanation {
                    profile,
                    units: 0,
                    rules: Vec::new(),
                });
                self.explanations.len() - 1
            }
        };
        &mut self.explanations[at]
    }

    /// Adds `profile` as a candidate, if it is not one yet.
    pub fn candidate(&mut self, profile: Profile) {
        self.slot(profile);
    }

    /// Counts in one unit, unexplained under `profile` with `rules` (which
    /// may be empty). A profile not in the tally yet is added.
    pub fn unexplained(&mut self, profile: Profile, rules: impl IntoIterator<Item = String>) {
        let e = self.slot(profile);
        e.units += 1;
        for rule in rules {
            match e.rules.iter_mut().find(|c| c.rule == rule) {
                Some(c) => c.units += 1,
                None => e.rules.push(RuleCount { rule, units: 1 }),
            }
        }
    }

    /// Counts in one unit by its records.
    pub fn unit(&mut self, records: &[Unexplained]) {
        for record in records {
            for &profile in &record.profiles {
                self.unexplained(profile, record.rules.iter().cloned());
            }
        }
    }

    /// Adds explanations counted elsewhere (a shard report of an older
    /// kpe-check, whose units carry no records).
    pub fn add(&mut self, other: &Explanation) {
        let e = self.slot(other.profile);
        e.units += other.units;
        for r in &other.rules {
            match e.rules.iter_mut().find(|c| c.rule == r.rule) {
                Some(c) => c.units += r.units,
                None => e.rules.push(r.clone()),
            }
        }
    }

    /// The explanations, each profile's rules in the spec's order.
    #[must_use]
    pub fn explanations(mut self) -> Vec<Explanation> {
        for e in &mut self.explanations {
            e.rules.sort_by_key(|r| {
                super::rules::RULE_IDS
                    .iter()
                    .position(|(id, _)| *id == r.rule)
            });
        }
        self.explanations
    }
}

/// How many units of one profile break a rule, or are left unexplained by
/// it under another profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleCount {
    /// The rule ID.
    pub rule: String,
    /// How many units.
    pub units: u64,
}

/// How well one profile explains a live engine's answers: the units whose
/// answers it does not explain, by rule. Shard reports carry one for each
/// profile, so that `kpe-check merge` names the reading from all shards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    /// The profile re-checked.
    pub profile: Profile,
    /// Units with an answer this profile does not explain.
    pub units: u64,
    /// Those units by the rule that decides the unexplained answer.
    pub rules: Vec<RuleCount>,
}

/// How many switches two profiles set differently.
pub(crate) fn distance(a: Profile, b: Profile) -> usize {
    Switch::ALL
        .iter()
        .filter(|&&s| a.has(s) != b.has(s))
        .count()
}

/// The profiles of `candidates` closest to `claimed` (fewest switches
/// changed), in `Profile::all` order.
pub(crate) fn closest(claimed: Profile, candidates: &[Profile]) -> Vec<Profile> {
    let Some(best) = candidates.iter().map(|&p| distance(claimed, p)).min() else {
        return Vec::new();
    };
    candidates
        .iter()
        .copied()
        .filter(|&p| distance(claimed, p) == best)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units that conform exactly under the given profiles.
    struct Fixed(Vec<Profile>, usize);

    impl Recheck for Fixed {
        type Error = ();
        fn conforms_under(&mut self, profile: Profile) -> Result<bool, ()> {
            self.1 += 1;
            Ok(self.0.contains(&profile))
        }
    }

    /// A profile written against the all-off profile, so that these tests
    /// state the same figures whatever the default is.
    fn p(s: &str) -> Profile {
        Profile::read_against(s, Profile::ALL_OFF).unwrap()
    }

    #[test]
    fn names_the_closest_profiles_first() {
        let base = Profile::ALL_OFF;
        let mut units = Fixed(vec![p("skip-origin,strict-lock"), p("skip-origin")], 0);
        let reading = name_reading(base, &mut units).unwrap();
        assert_eq!(
            units.1,
            Profile::COUNT - 1,
            "every other profile is tried once"
        );
        assert_eq!(
            reading.conforms_under,
            vec![p("skip-origin"), p("skip-origin,strict-lock")]
        );
        assert_eq!(reading.free_switches(), Some(vec![Switch::StrictLock]));
        let mut units = Fixed(
            vec![
                p("skip-origin,strict-lock"),
                p("strict-lock,feed-after-capture"),
                p("skip-origin"),
            ],
            0,
        );
        let reading = name_reading(base, &mut units).unwrap();
        assert_eq!(
            reading.to_string(),
            format!(
                "conforms under: {} (I1: a sowing of 8+ stones skips its origin pit); also under 2 other profiles",
                p("skip-origin")
            )
        );
        assert_eq!(reading.free_switches(), None);
        let cube: Vec<Profile> = Profile::all()
            .filter(|p| p.has(Switch::SkipOrigin) && !p.has(Switch::StrictLock))
            .collect();
        let reading = name_reading(base, &mut Fixed(cube, 0)).unwrap();
        // Every switch but the two the cube fixes is free.
        let free: Vec<Switch> = Switch::ALL
            .into_iter()
            .filter(|&s| s != Switch::SkipOrigin && s != Switch::StrictLock)
            .collect();
        assert_eq!(reading.free_switches(), Some(free.clone()));
        let ids: Vec<&str> = free.iter().map(|s| s.reading()).collect();
        assert!(reading.to_string().ends_with(&format!(
            "origin pit), whatever the readings {}, which these games do not tell apart",
            ids.join(", ")
        )));
        let none = name_reading(base, &mut Fixed(vec![], 0)).unwrap();
        assert!(!none.explained());
        assert_eq!(
            none.to_string(),
            format!(
                "no documented reading explains it: it diverges under every one of the {} other profiles re-checked",
                Profile::COUNT - 1
            )
        );
    }

    /// Units that cannot tell some readings apart.
    struct Blind(Vec<Switch>, usize);

    impl Recheck for Blind {
        type Error = ();
        fn conforms_under(&mut self, _: Profile) -> Result<bool, ()> {
            self.1 += 1;
            Ok(false)
        }
        fn kept_as_claimed(&self) -> &[Switch] {
            &self.0
        }
    }

    #[test]
    fn readings_kept_as_claimed_are_not_rechecked_and_the_count_says_so() {
        let claimed: Profile = "end-on-repetition".parse().unwrap();
        let mut units = Blind(vec![Switch::EndOnRepetition], 0);
        let reading = name_reading(claimed, &mut units).unwrap();
        // Half the profiles agree on I5; all but the claimed one of those.
        let others = Profile::COUNT / 2 - 1;
        assert_eq!((units.1, reading.rechecked), (others, others));
        assert_eq!(
            reading.to_string(),
            format!(
                "no documented reading explains it: it diverges under every one of the {others} other profiles re-checked (I5 kept as claimed, which these checks cannot tell apart)"
            )
        );
        let all_but_one: Vec<Switch> = Switch::ALL[1..].to_vec();
        let kept: Vec<&str> = all_but_one.iter().map(|s| s.reading()).collect();
        let reading = name_reading(Profile::DEFAULT, &mut Blind(all_but_one, 0)).unwrap();
        assert_eq!(reading.rechecked, 1);
        assert!(
            reading.to_string().contains(&format!(
                "it diverges under the one other profile re-checked ({} kept",
                kept.join(", ")
            )),
            "{reading}"
        );
        let reading = name_reading(Profile::DEFAULT, &mut Blind(Switch::ALL.to_vec(), 0)).unwrap();
        assert_eq!(reading.rechecked, 0);
        assert!(
            reading
                .to_string()
                .contains("explains it: no other profile was re-checked (I1, I2"),
            "{reading}"
        );
    }

    /// A profile written against the all-off profile.
    fn all_off(profile: &str) -> Profile {
        Profile::read_against(profile, Profile::ALL_OFF).unwrap()
    }

    fn explanation(profile: &str, units: u64) -> Explanation {
        Explanation {
            profile: all_off(profile),
            units,
            rules: vec![RuleCount {
                rule: "CAP-3".to_owned(),
                units,
            }],
        }
    }

    /// Ties as spec/REPORT.md says: fewest units, then fewest switches
    /// changed (the claim wins), then `Profile::all` order, whatever order
    /// the explanations come in (a merge gathers them from several shards).
    #[test]
    fn the_nearest_profile_breaks_ties_as_the_spec_says() {
        // Profiles are written against the all-off profile here, so the
        // test says the same whatever the default is.
        let p = all_off;
        let tied = [
            explanation("strict-lock", 2),
            explanation("skip-origin", 2),
            explanation("skip-origin,strict-lock", 2),
            explanation("default", 3),
        ];
        let near = nearest(Profile::ALL_OFF, &tied).unwrap();
        assert_eq!(near.profile, p("skip-origin"), "Profile::all order");
        let with_claim = [explanation("skip-origin", 2), explanation("default", 2)];
        assert_eq!(
            nearest(Profile::ALL_OFF, &with_claim).unwrap().profile,
            Profile::ALL_OFF,
            "the claim wins a tie"
        );
        let fewer = [
            explanation("default", 2),
            explanation("feed-after-capture", 1),
        ];
        assert_eq!(
            nearest(Profile::ALL_OFF, &fewer).unwrap().profile,
            p("feed-after-capture"),
            "fewest units first"
        );
        let claimed = p("skip-origin");
        let far = [
            explanation("strict-lock", 1),
            explanation("default", 1),
            explanation("skip-origin", 4),
        ];
        assert_eq!(nearest(claimed, &far).unwrap().profile, Profile::ALL_OFF);
        // Explaining profiles are listed closest first, ties in
        // `Profile::all` order.
        let zero = [
            explanation("skip-origin,strict-lock", 0),
            explanation("strict-lock", 0),
            explanation("skip-origin", 0),
            explanation("default", 3),
        ];
        let reading = reading_from(Profile::ALL_OFF, &zero, &[]);
        assert_eq!(
            reading.conforms_under,
            [
                p("skip-origin"),
                p("strict-lock"),
                p("skip-origin,strict-lock")
            ]
        );
        assert_eq!(reading.rechecked, 3);
        assert!(reading.nearest.is_none());
    }

    /// Issue 43: a nearest profile that wins by a hair says it is weak
    /// evidence; one well ahead does not; a transcript counts games; an
    /// empty list of rules is not a blank.
    #[test]
    fn the_nearest_profile_says_how_far_ahead_it_is() {
        // `default` read against the all-off profile is the claim.
        let claimed = Profile::ALL_OFF;
        let sentence = |explanations: &[Explanation], noun: &str| {
            reading_from(claimed, explanations, &[])
                .stated_in(noun)
                .text
        };
        // One game ahead of the claim, in 28: weak.
        let hair = [explanation("default", 28), explanation("skip-origin", 27)];
        let near = nearest(claimed, &hair).unwrap();
        assert_eq!(
            near.next,
            Some(NextProfile {
                profile: claimed,
                units: 28
            })
        );
        assert!(near.weak());
        let text = sentence(&hair, "game");
        assert!(
            text.ends_with(
                "except CAP-3 (27 games) (weak evidence: the claimed profile leaves 28 games, only 1 more)"
            ),
            "{text}"
        );
        assert!(!text.contains("unit"), "{text}");
        // Well ahead: stated plainly.
        let ahead = [explanation("default", 28), explanation("skip-origin", 3)];
        assert!(!nearest(claimed, &ahead).unwrap().weak());
        let text = sentence(&ahead, "unit");
        // Profiles are named against the default, whatever it is (`kpe
        // adopt` may have changed it).
        assert!(
            text.ends_with(&format!(
                "closest: conforms under {} except CAP-3 (3 units)",
                all_off("skip-origin")
            )),
            "{text}"
        );
        // A profile that changes the nearest's switch and more, which the
        // units do not tell apart, backs the diagnosis: not the runner-up.
        let backed = [
            explanation("default", 9),
            explanation("skip-origin", 1),
            explanation("skip-origin,strict-lock", 1),
        ];
        let near = nearest(claimed, &backed).unwrap();
        assert_eq!(
            near.next,
            Some(NextProfile {
                profile: claimed,
                units: 9
            })
        );
        assert!(!near.weak());
        // A tie lost only on the switches changed: weak, and said so.
        let tie = [explanation("strict-lock", 4), explanation("skip-origin", 4)];
        let text = sentence(&tie, "unit");
        assert!(
            text.ends_with(&format!(
                "(weak evidence: {} leaves as many, 4 units)",
                all_off("strict-lock")
            )),
            "{text}"
        );
        // Two ahead of 50 is less than a tenth: weak; two ahead of 5 is not.
        let close = [
            explanation("strict-lock", 52),
            explanation("skip-origin", 50),
        ];
        assert!(nearest(claimed, &close).unwrap().weak());
        let clear = [explanation("strict-lock", 7), explanation("skip-origin", 5)];
        assert!(!nearest(claimed, &clear).unwrap().weak());
        // Units left with no rule to name: counted, not a blank.
        let bare = [Explanation {
            profile: claimed,
            units: 2,
            rules: Vec::new(),
        }];
        let text = sentence(&bare, "game");
        assert!(
            text.ends_with("the claimed profile itself, which leaves 2 games unexplained"),
            "{text}"
        );
        assert!(!text.contains("  "), "{text}");
    }

    #[test]
    fn a_tally_counts_units_by_their_records() {
        // Profiles that differ from the default whatever it is.
        let flip = |s: Switch| Profile::DEFAULT.set(s, !Profile::DEFAULT.has(s));
        let mut rules = RuleSet::new();
        rules.insert("CAP-3");
        let records = unexplained(&[
            (Profile::DEFAULT, rules),
            (flip(Switch::SkipOrigin), rules),
            (flip(Switch::StrictLock), RuleSet::new()),
        ]);
        assert_eq!(records.len(), 2, "{records:?}");
        let mut tally = Tally::new([
            Profile::DEFAULT,
            flip(Switch::SkipOrigin),
            flip(Switch::StrictLock),
        ]);
        tally.candidate(flip(Switch::FeedAfterCapture));
        tally.unit(&records);
        tally.unit(&records);
        tally.unit(&[]);
        let e = tally.explanations();
        let units: Vec<u64> = e.iter().map(|e| e.units).collect();
        assert_eq!(units, [2, 2, 2, 0]);
        assert_eq!(
            e[0].rules,
            [RuleCount {
                rule: "CAP-3".to_owned(),
                units: 2
            }]
        );
        assert!(e[2].rules.is_empty(), "unexplained with no rule");
    }

    #[test]
    fn closest_profiles_change_the_fewest_switches() {
        let others: Vec<Profile> = Profile::all().filter(|&q| q != Profile::DEFAULT).collect();
        // The closest are one switch away: one a switch.
        assert_eq!(closest(Profile::DEFAULT, &others).len(), Switch::ALL.len());
        assert_eq!(
            closest(p("skip-origin"), &[p("strict-lock"), p("default")]),
            vec![p("default")]
        );
        assert!(closest(Profile::DEFAULT, &[]).is_empty());
    }
}
