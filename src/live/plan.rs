//! The plan of a live run: every unit of every profile, in order (the
//! suite's scenarios and perft counts, the random games, the edge probes),
//! after `--only`/`--skip` and `--shard`. The random games are not held:
//! game `n` is made from the seed and `n` when the plan reaches it
//! ([`Plan::iter`]), and dropped once run, so the plan's memory does not
//! grow with `--games`.

use std::sync::Arc;

use super::units::{RandomGame, Unit};
use crate::position::Position;
use crate::profile::Profile;
use crate::reporter::{Policy, Shard};

/// A unit in the plan, with the profile it is checked under.
pub struct Planned {
    /// Which profile of the run (0 for the first).
    pub profile_index: usize,
    /// The profile.
    pub profile: Profile,
    /// Its place in the whole plan, before sharding.
    pub seq: u64,
    /// The unit.
    pub unit: Arc<dyn Unit>,
}

/// The random games of a plan: how many, from which seed and starts, and
/// how long each may be.
#[derive(Clone)]
pub struct RandomGames {
    /// The seed.
    pub seed: u64,
    /// How many.
    pub games: u32,
    /// The longest a game may be, in plies.
    pub max_plies: u32,
    /// Where they start, in turn (the initial position when empty).
    pub starts: Arc<[Position]>,
}

/// The units of one profile: `before` (scenarios, perft), the random
/// games, then `after` (edge probes).
pub struct ProfileUnits {
    /// The profile.
    pub profile: Profile,
    /// The units before the random games.
    pub before: Vec<Arc<dyn Unit>>,
    /// The random games.
    pub games: RandomGames,
    /// The units after them.
    pub after: Vec<Arc<dyn Unit>>,
}

impl ProfileUnits {
    fn len(&self) -> usize {
        self.before.len() + self.games.games as usize + self.after.len()
    }

    /// Unit `k` of the profile.
    fn unit(&self, k: usize) -> Arc<dyn Unit> {
        if let Some(unit) = self.before.get(k) {
            return Arc::clone(unit);
        }
        let k = k - self.before.len();
        let games = self.games.games as usize;
        if k < games {
            let g = &self.games;
            // `k` is below `games`, a `u32`.
            let index = u32::try_from(k).unwrap_or(u32::MAX);
            return Arc::new(RandomGame::new(
                g.seed,
                index,
                g.max_plies,
                Arc::clone(&g.starts),
            ));
        }
        Arc::clone(&self.after[k - games])
    }
}

/// The plan of a run: the units selected, in order, made as they are
/// reached.
pub struct Plan<'a> {
    profiles: Vec<ProfileUnits>,
    policy: &'a Policy,
    shard: Option<Shard>,
    /// Units selected by `--only`/`--skip`.
    selected: u64,
    /// Of those, the units of the shard.
    len: usize,
}

impl<'a> Plan<'a> {
    /// The plan of `profiles`' units that `policy` selects, of which
    /// `shard` takes its share.
    #[must_use]
    pub fn new(profiles: Vec<ProfileUnits>, policy: &'a Policy, shard: Option<Shard>) -> Plan<'a> {
        let mut plan = Plan {
            profiles,
            policy,
            shard,
            selected: 0,
            len: 0,
        };
        // Without --only/--skip every unit is selected: nothing to make.
        plan.selected = if plan.selects_all() {
            plan.profiles.iter().map(ProfileUnits::len).sum::<usize>() as u64
        } else {
            plan.all().count() as u64
        };
        let len = match shard {
            Some(shard) => (0..plan.selected).filter(|&s| shard.contains(s)).count(),
            None => usize::try_from(plan.selected).unwrap_or(usize::MAX),
        };
        plan.len = len;
        plan
    }

    /// Whether `--only` and `--skip` leave every unit in.
    fn selects_all(&self) -> bool {
        self.policy.only.is_empty() && self.policy.skip.is_empty()
    }

    /// The units of profile `index` made with the plan (all but the
    /// random games) that `--only`/`--skip` select, shard or not.
    pub fn fixed(&self, index: usize) -> impl Iterator<Item = &Arc<dyn Unit>> {
        self.profiles
            .get(index)
            .into_iter()
            .flat_map(|units| units.before.iter().chain(&units.after))
            .filter(|unit| self.policy.selects(&unit.id(), unit.rules()))
    }

    /// Units the plan runs (the shard's share of those selected).
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Units selected by `--only`/`--skip`, before `--shard` takes its
    /// share.
    #[must_use]
    pub fn selected(&self) -> u64 {
        self.selected
    }

    /// Units of the profiles that `--only`/`--skip` leave out.
    #[must_use]
    pub fn left_out(&self) -> u64 {
        let all: usize = self.profiles.iter().map(ProfileUnits::len).sum();
        all as u64 - self.selected
    }

    /// The units selected, the shard's and the others', in order.
    #[must_use]
    pub fn all(&self) -> Units<'_> {
        Units {
            plan: self,
            profile: 0,
            k: 0,
            seq: 0,
            sharded: false,
        }
    }

    /// The units to run, in order.
    #[must_use]
    pub fn iter(&self) -> Units<'_> {
        Units {
            sharded: self.shard.is_some(),
            ..self.all()
        }
    }
}

/// The units of a [`Plan`], each made when reached.
pub struct Units<'p> {
    plan: &'p Plan<'p>,
    profile: usize,
    k: usize,
    seq: u64,
    sharded: bool,
}

impl Iterator for Units<'_> {
    type Item = Planned;

    fn next(&mut self) -> Option<Planned> {
        loop {
            let units = self.plan.profiles.get(self.profile)?;
            if self.k >= units.len() {
                self.profile += 1;
                self.k = 0;
                continue;
            }
            let unit = units.unit(self.k);
            self.k += 1;
            if !self.plan.selects_all() && !self.plan.policy.selects(&unit.id(), unit.rules()) {
                continue;
            }
            let seq = self.seq;
            self.seq += 1;
            if self.sharded && !self.plan.shard.is_some_and(|s| s.contains(seq)) {
                continue;
            }
            return Some(Planned {
                profile_index: self.profile,
                profile: units.profile,
                seq,
                unit,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(games: u32, policy: &Policy, shard: Option<Shard>) -> Plan<'_> {
        let units = |profile| ProfileUnits {
            profile,
            before: Vec::new(),
            games: RandomGames {
                seed: 3,
                games,
                max_plies: 4,
                starts: Arc::from(Vec::new()),
            },
            after: Vec::new(),
        };
        Plan::new(
            vec![units(Profile::default()), units(Profile::ALL_OFF)],
            policy,
            shard,
        )
    }

    #[test]
    fn units_are_made_in_order_and_numbered_after_the_selection() {
        let policy = Policy::default();
        let plan = plan_of(5, &policy, None);
        assert_eq!((plan.len(), plan.selected(), plan.left_out()), (10, 10, 0));
        let ids: Vec<(usize, String, u64)> = plan
            .iter()
            .map(|p| (p.profile_index, p.unit.id(), p.seq))
            .collect();
        assert_eq!(ids[0], (0, "random/0".to_owned(), 0));
        assert_eq!(ids[6], (1, "random/1".to_owned(), 6));
        let shard: Shard = "2/3".parse().unwrap();
        let sharded = plan_of(5, &policy, Some(shard));
        let seqs: Vec<u64> = sharded.iter().map(|p| p.seq).collect();
        assert_eq!(seqs, [1, 4, 7]);
        assert_eq!((sharded.len(), sharded.selected()), (3, 10));
        assert_eq!(sharded.all().count(), 10);
    }

    #[test]
    fn only_and_skip_leave_units_out_before_they_are_numbered() {
        let policy = Policy {
            only: vec!["random/1*".parse().unwrap()],
            skip: vec!["random/12".parse().unwrap()],
            ..Policy::default()
        };
        let plan = plan_of(20, &policy, None);
        // random/1 and random/10 to random/19 but 12, in each profile.
        assert_eq!((plan.len(), plan.selected(), plan.left_out()), (20, 20, 20));
        let ids: Vec<(String, u64)> = plan.iter().map(|p| (p.unit.id(), p.seq)).collect();
        assert_eq!(ids[0], ("random/1".to_owned(), 0));
        assert_eq!(ids[3], ("random/13".to_owned(), 3));
        let shard: Shard = "1/2".parse().unwrap();
        let sharded = plan_of(20, &policy, Some(shard));
        assert_eq!(sharded.len(), 10);
        assert!(sharded.iter().all(|p| p.seq % 2 == 0));
    }

    #[test]
    fn a_plan_of_many_games_holds_none_of_them() {
        // The plan of many games is as small as that of one: the games
        // are made when reached (issue 25).
        let policy = Policy::default();
        let one = plan_of(1, &policy, None);
        let many = plan_of(100_000, &policy, None);
        assert_eq!(many.len(), 200_000);
        let held = |p: &Plan<'_>| -> usize {
            p.profiles
                .iter()
                .map(|u| u.before.len() + u.after.len())
                .sum()
        };
        assert_eq!(held(&one), held(&many));
        assert_eq!(many.iter().nth(199_999).unwrap().unit.id(), "random/99999");
    }
}
