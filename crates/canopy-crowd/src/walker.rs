//! One crowd agent's own data: what the behavior tree reads and writes for
//! it. The tree never moves an agent; it writes an *intent* (a preferred
//! velocity), and the movement phase turns intents into motion with
//! collision avoidance, so the tick can run on a read-only world.

use canopy_core::ParamEnum;
use glam::Vec2;

/// What an agent is doing, as the tree last declared it (`Activity` leaf);
/// used to colour the picture and count the crowd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, ParamEnum)]
#[repr(u8)]
pub enum Activity {
    /// Not decided yet.
    #[default]
    Idle,
    /// Running from a threat.
    Flee,
    /// Going to food and eating.
    Eat,
    /// Going to a rest area and sleeping.
    Rest,
    /// Mingling with neighbours.
    Socialize,
    /// Strolling about.
    Wander,
}

impl Activity {
    /// Every activity, in legend order.
    pub const ALL: [Activity; 6] = [
        Activity::Flee,
        Activity::Eat,
        Activity::Rest,
        Activity::Socialize,
        Activity::Wander,
        Activity::Idle,
    ];

    /// The word used in tree files and reports.
    ///
    /// ```
    /// use canopy_crowd::Activity;
    /// assert_eq!(Activity::from_word("rest"), Some(Activity::Rest));
    /// assert_eq!(Activity::Rest.word(), "rest");
    /// ```
    pub fn word(self) -> &'static str {
        match self {
            Activity::Idle => "idle",
            Activity::Flee => "flee",
            Activity::Eat => "eat",
            Activity::Rest => "rest",
            Activity::Socialize => "socialize",
            Activity::Wander => "wander",
        }
    }

    /// The activity a word names.
    pub fn from_word(word: &str) -> Option<Activity> {
        Activity::ALL.into_iter().find(|a| a.word() == word)
    }

    /// Colour in pictures.
    pub fn colour(self) -> &'static str {
        match self {
            Activity::Idle => "#9e9e9e",
            Activity::Flee => "#e53935",
            Activity::Eat => "#43a047",
            Activity::Rest => "#1e88e5",
            Activity::Socialize => "#fb8c00",
            Activity::Wander => "#8e24aa",
        }
    }
}

/// One agent of the crowd.
#[derive(Clone, Debug, PartialEq)]
pub struct Walker {
    /// Position, m.
    pub pos: Vec2,
    /// Velocity, m/s.
    pub vel: Vec2,
    /// Body radius, m.
    pub radius: f32,
    /// Free walking speed, m/s: the speed of an intent of "speed 1". An
    /// intent may ask for more (running from a threat); avoidance then
    /// allows that much.
    pub max_speed: f32,
    /// Where the agent is heading (food, rest area), when it has a goal.
    pub goal: Vec2,
    /// Hunger in 0..=1; grows over time.
    pub hunger: f32,
    /// Fatigue in 0..=1; grows with time and speed.
    pub fatigue: f32,
    /// Fear in 0..=1; jumps near threats and fades.
    pub fear: f32,
    /// The food patch it chose, or -1.
    pub known_food: i32,
    /// The rest area it chose, or -1.
    pub known_rest: i32,
    /// Meals it has finished.
    pub meals: u32,
    /// Sleeps it has finished.
    pub naps: u32,
    /// What the tree says it is doing.
    pub activity: Activity,
    /// Preferred velocity the tree asked for this step (zero: stand still).
    pub intent: Vec2,
    /// Other agents within the social radius at the start of this step
    /// (at most 255).
    pub neighbours: u8,
    /// Where the nearest of them was, if any.
    pub nearest: Option<Vec2>,
    /// The agent's own dice (xorshift state, never 0).
    pub rng: u32,
}

impl Walker {
    /// A uniform number in `0.0..1.0` from the agent's own generator.
    pub fn roll(&mut self) -> f32 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        (x >> 8) as f32 / (1u32 << 24) as f32
    }
}
