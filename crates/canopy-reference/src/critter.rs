//! The reference agent: a critter on a meadow that flees a roaming threat,
//! eats when hungry, rests when tired and otherwise wanders or chats.
//!
//! The leaves are plain functions over `(&mut Critter, &Meadow)`, so the
//! canopy tree, the naive baseline and any peer library run exactly the same
//! leaf code on the same data. Everything is integer arithmetic driven by a
//! per-critter xorshift generator, so runs are reproducible bit for bit and
//! outcomes differ from agent to agent and over time.

/// One agent's own data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Critter {
    /// Position on the meadow, in cells.
    pub x: i32,
    /// Position on the meadow, in cells.
    pub y: i32,
    /// Grows with activity; above [`HUNGRY`] the critter looks for food.
    pub hunger: i32,
    /// Grows with activity; above [`TIRED`] the critter looks for rest.
    pub fatigue: i32,
    /// Where the critter is walking to.
    pub target: (i32, i32),
    /// Whether it remembers where food is.
    pub knows_food: bool,
    /// Steps left in the current stroll.
    pub stroll_left: u32,
    /// Xorshift state: the critter's own dice.
    pub rng: u32,
    /// Things that happened, for checking runs against each other.
    pub shouts: u32,
    /// Bites eaten.
    pub bites: u32,
    /// Naps finished.
    pub naps: u32,
    /// Friends greeted.
    pub waves: u32,
}

/// Hunger above which a critter goes looking for food.
pub const HUNGRY: i32 = 500;
/// Fatigue above which a critter goes looking for rest.
pub const TIRED: i32 = 800;

/// The shared world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meadow {
    /// The meadow is `size × size` cells.
    pub size: i32,
    /// Where the threat is.
    pub threat: (i32, i32),
    /// How close the threat must be to scare a critter.
    pub threat_radius: i32,
    /// Food sources.
    pub food: Vec<(i32, i32)>,
    /// Rest areas.
    pub rest: Vec<(i32, i32)>,
    /// World steps so far.
    pub time: u32,
}

impl Meadow {
    /// A meadow of `size × size` cells with a few food sources and rest areas.
    ///
    /// ```
    /// let m = canopy_reference::Meadow::new(128);
    /// assert_eq!(m.food.len(), 6);
    /// ```
    pub fn new(size: i32) -> Meadow {
        let q = size / 4;
        Meadow {
            size,
            threat: (q, q),
            threat_radius: size / 8,
            food: vec![
                (q, 3 * q),
                (2 * q, q / 2),
                (3 * q, 3 * q),
                (q / 2, 2 * q),
                (7 * q / 2, 2 * q),
                (2 * q, 2 * q),
            ],
            rest: vec![(q / 2, q / 2), (7 * q / 2, 7 * q / 2), (q / 2, 7 * q / 2)],
            time: 0,
        }
    }

    /// One world step: the threat walks around a square loop.
    pub fn advance(&mut self) {
        self.time += 1;
        let side = self.size / 2;
        let t = (self.time as i32 / 2) % (4 * side);
        let (lo, s) = (self.size / 4, side);
        self.threat = match t / s {
            0 => (lo + t % s, lo),
            1 => (lo + s, lo + t % s),
            2 => (lo + s - t % s, lo + s),
            _ => (lo, lo + s - t % s),
        };
    }
}

/// `n` critters scattered over `meadow`, reproducibly from `seed`.
///
/// ```
/// let m = canopy_reference::Meadow::new(128);
/// let a = canopy_reference::critters(100, 7, &m);
/// assert_eq!(a, canopy_reference::critters(100, 7, &m));
/// ```
pub fn critters(n: usize, seed: u32, meadow: &Meadow) -> Vec<Critter> {
    (0..n as u32)
        .map(|i| {
            let mut rng = (i.wrapping_mul(0x9e37_79b9) ^ seed.wrapping_mul(0x85eb_ca6b)) | 1;
            let mut roll = |m: i32| (xorshift(&mut rng) % m as u32) as i32;
            Critter {
                x: roll(meadow.size),
                y: roll(meadow.size),
                hunger: roll(HUNGRY + 100),
                fatigue: roll(TIRED + 50),
                target: (0, 0),
                knows_food: roll(2) == 0,
                stroll_left: 0,
                rng: xorshift(&mut rng) | 1,
                shouts: 0,
                bites: 0,
                naps: 0,
                waves: 0,
            }
        })
        .collect()
}

fn xorshift(state: &mut u32) -> u32 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    x
}

impl Critter {
    fn roll(&mut self, n: u32) -> u32 {
        xorshift(&mut self.rng) % n
    }

    fn step_towards(&mut self, (tx, ty): (i32, i32)) -> bool {
        self.x += (tx - self.x).signum();
        self.y += (ty - self.y).signum();
        (self.x, self.y) == (tx, ty)
    }
}

fn dist2(a: (i32, i32), b: (i32, i32)) -> i32 {
    let (dx, dy) = (a.0 - b.0, a.1 - b.1);
    dx * dx + dy * dy
}

/// A leaf outcome: the three statuses without depending on any library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not finished yet.
    Running,
    /// Finished well.
    Success,
    /// Finished badly.
    Failure,
}

/// The leaf code of the reference tree.
pub mod leaves {
    use super::*;

    /// Condition: the threat is within its radius.
    pub fn threat_near(c: &Critter, m: &Meadow) -> bool {
        dist2((c.x, c.y), m.threat) < m.threat_radius * m.threat_radius
    }

    /// Action: one step away from the threat; Success once out of reach.
    pub fn run_away(c: &mut Critter, m: &Meadow) -> Outcome {
        let away = (
            c.x + (c.x - m.threat.0).signum() * 2,
            c.y + (c.y - m.threat.1).signum() * 2,
        );
        c.x = away.0.clamp(0, m.size - 1);
        c.y = away.1.clamp(0, m.size - 1);
        c.fatigue += 2;
        c.hunger += 1;
        if threat_near(c, m) {
            Outcome::Running
        } else {
            Outcome::Success
        }
    }

    /// Action: warn the others.
    pub fn shout(c: &mut Critter, _m: &Meadow) -> Outcome {
        c.shouts += 1;
        Outcome::Success
    }

    /// Condition: hungry enough to look for food.
    pub fn hungry(c: &Critter, _m: &Meadow) -> bool {
        c.hunger > HUNGRY
    }

    /// Condition: remembers where food is.
    pub fn knows_food(c: &Critter, _m: &Meadow) -> bool {
        c.knows_food
    }

    /// Action: head for the remembered food source nearest to the critter.
    pub fn recall_food(c: &mut Critter, m: &Meadow) -> Outcome {
        let here = (c.x, c.y);
        match m.food.iter().min_by_key(|&&f| dist2(f, here)) {
            Some(&food) => {
                c.target = food;
                Outcome::Success
            }
            None => Outcome::Failure,
        }
    }

    /// Action: look around for food; finds some two times in five.
    pub fn search_food(c: &mut Critter, m: &Meadow) -> Outcome {
        if m.food.is_empty() || c.roll(5) >= 2 {
            return Outcome::Failure;
        }
        c.target = m.food[c.roll(m.food.len() as u32) as usize];
        c.knows_food = true;
        Outcome::Success
    }

    /// Action: one step towards the target; Success on arrival.
    pub fn walk_to_target(c: &mut Critter, _m: &Meadow) -> Outcome {
        c.fatigue += 1;
        if c.step_towards(c.target) {
            Outcome::Success
        } else {
            Outcome::Running
        }
    }

    /// Action: eat a bite.
    pub fn take_bite(c: &mut Critter, _m: &Meadow) -> Outcome {
        c.hunger = (c.hunger - 150).max(0);
        c.bites += 1;
        Outcome::Success
    }

    /// Condition: tired enough to look for rest.
    pub fn tired(c: &Critter, _m: &Meadow) -> bool {
        c.fatigue > TIRED
    }

    /// Condition: this patch of the meadow is crowded (one patch in five).
    pub fn crowded(c: &Critter, _m: &Meadow) -> bool {
        let patch = ((c.x / 8) as u32).wrapping_mul(73_856_093)
            ^ ((c.y / 8) as u32).wrapping_mul(19_349_663);
        patch.is_multiple_of(5)
    }

    /// Condition: still tired (re-checked while walking to rest).
    pub fn still_tired(c: &Critter, _m: &Meadow) -> bool {
        c.fatigue > TIRED / 4
    }

    /// Action: one step towards the nearest rest area; Success on arrival.
    pub fn walk_to_rest(c: &mut Critter, m: &Meadow) -> Outcome {
        let here = (c.x, c.y);
        let Some(&spot) = m.rest.iter().min_by_key(|&&r| dist2(r, here)) else {
            return Outcome::Failure;
        };
        c.hunger += 1;
        if c.step_towards(spot) {
            Outcome::Success
        } else {
            Outcome::Running
        }
    }

    /// Action: wake up rested.
    pub fn recover(c: &mut Critter, _m: &Meadow) -> Outcome {
        c.fatigue = 0;
        c.naps += 1;
        Outcome::Success
    }

    /// Condition: a friend happens to be near (varies with place and time).
    pub fn friend_near(c: &Critter, m: &Meadow) -> bool {
        (c.x + c.y + (m.time / 7) as i32).rem_euclid(9) == 0
    }

    /// Action: wave at the friend; noticed half of the time.
    pub fn wave(c: &mut Critter, _m: &Meadow) -> Outcome {
        c.waves += 1;
        if c.roll(2) == 0 {
            Outcome::Success
        } else {
            Outcome::Failure
        }
    }

    /// Action: one random step of a stroll of 5 to 14 steps.
    pub fn stroll(c: &mut Critter, m: &Meadow) -> Outcome {
        if c.stroll_left == 0 {
            c.stroll_left = 5 + c.roll(10);
        }
        let dir = c.roll(4) as i32;
        let (dx, dy) = [(1, 0), (-1, 0), (0, 1), (0, -1)][dir as usize];
        c.x = (c.x + dx).clamp(0, m.size - 1);
        c.y = (c.y + dy).clamp(0, m.size - 1);
        c.hunger += 2;
        c.fatigue += 1;
        c.stroll_left -= 1;
        if c.stroll_left == 0 {
            Outcome::Success
        } else {
            Outcome::Running
        }
    }

    /// Action: look around; done one time in four.
    pub fn look_around(c: &mut Critter, _m: &Meadow) -> Outcome {
        if c.roll(4) == 0 {
            Outcome::Success
        } else {
            Outcome::Running
        }
    }
}

/// Every leaf of the reference tree, for libraries that dispatch leaves by
/// value (bonsai-bt's action enum) rather than by closure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Leaf {
    /// [`leaves::threat_near`]
    ThreatNear,
    /// [`leaves::run_away`]
    RunAway,
    /// [`leaves::shout`]
    Shout,
    /// [`leaves::hungry`]
    Hungry,
    /// [`leaves::knows_food`]
    KnowsFood,
    /// [`leaves::recall_food`]
    RecallFood,
    /// [`leaves::search_food`]
    SearchFood,
    /// [`leaves::walk_to_target`]
    WalkToTarget,
    /// [`leaves::take_bite`]
    TakeBite,
    /// [`leaves::tired`]
    Tired,
    /// [`leaves::crowded`]
    Crowded,
    /// [`leaves::still_tired`]
    StillTired,
    /// [`leaves::walk_to_rest`]
    WalkToRest,
    /// [`leaves::recover`]
    Recover,
    /// [`leaves::friend_near`]
    FriendNear,
    /// [`leaves::wave`]
    Wave,
    /// [`leaves::stroll`]
    Stroll,
    /// [`leaves::look_around`]
    LookAround,
}

impl Leaf {
    /// Every leaf.
    pub const ALL: [Leaf; 18] = [
        Leaf::ThreatNear,
        Leaf::RunAway,
        Leaf::Shout,
        Leaf::Hungry,
        Leaf::KnowsFood,
        Leaf::RecallFood,
        Leaf::SearchFood,
        Leaf::WalkToTarget,
        Leaf::TakeBite,
        Leaf::Tired,
        Leaf::Crowded,
        Leaf::StillTired,
        Leaf::WalkToRest,
        Leaf::Recover,
        Leaf::FriendNear,
        Leaf::Wave,
        Leaf::Stroll,
        Leaf::LookAround,
    ];

    /// The node name the reference tree gives this leaf.
    ///
    /// ```
    /// use canopy_reference::Leaf;
    /// assert_eq!(Leaf::from_name(Leaf::Stroll.name()), Some(Leaf::Stroll));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Leaf::ThreatNear => "threat near?",
            Leaf::RunAway => "run away",
            Leaf::Shout => "shout",
            Leaf::Hungry => "hungry?",
            Leaf::KnowsFood => "knows food?",
            Leaf::RecallFood => "recall food",
            Leaf::SearchFood => "search food",
            Leaf::WalkToTarget => "walk to food",
            Leaf::TakeBite => "take bite",
            Leaf::Tired => "tired?",
            Leaf::Crowded => "crowded?",
            Leaf::StillTired => "still tired?",
            Leaf::WalkToRest => "walk to rest area",
            Leaf::Recover => "recover",
            Leaf::FriendNear => "friend near?",
            Leaf::Wave => "wave",
            Leaf::Stroll => "stroll",
            Leaf::LookAround => "look around",
        }
    }

    /// The leaf with this node name.
    pub fn from_name(name: &str) -> Option<Leaf> {
        Leaf::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Run the leaf: conditions give Success or Failure.
    pub fn run(self, c: &mut Critter, m: &Meadow) -> Outcome {
        use leaves::*;
        let check = |ok: bool| {
            if ok {
                Outcome::Success
            } else {
                Outcome::Failure
            }
        };
        match self {
            Leaf::ThreatNear => check(threat_near(c, m)),
            Leaf::RunAway => run_away(c, m),
            Leaf::Shout => shout(c, m),
            Leaf::Hungry => check(hungry(c, m)),
            Leaf::KnowsFood => check(knows_food(c, m)),
            Leaf::RecallFood => recall_food(c, m),
            Leaf::SearchFood => search_food(c, m),
            Leaf::WalkToTarget => walk_to_target(c, m),
            Leaf::TakeBite => take_bite(c, m),
            Leaf::Tired => check(tired(c, m)),
            Leaf::Crowded => check(crowded(c, m)),
            Leaf::StillTired => check(still_tired(c, m)),
            Leaf::WalkToRest => walk_to_rest(c, m),
            Leaf::Recover => recover(c, m),
            Leaf::FriendNear => check(friend_near(c, m)),
            Leaf::Wave => wave(c, m),
            Leaf::Stroll => stroll(c, m),
            Leaf::LookAround => look_around(c, m),
        }
    }
}
