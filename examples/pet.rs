//! Pet: the classic coin-hunting pet of the registry-built tree, on canopy.
//!
//! A pet lives on a 16×16 grid with its owner. Its tree is a priority list:
//! 1. a coin is nearby → walk to it and pick it up;
//! 2. it has been away from its owner too long → go back to the owner;
//! 3. otherwise → wander.
//!
//! What it demonstrates:
//! - a **`ReactiveSelector`**: every tick the higher-priority branches are
//!   re-checked, and one that starts running **aborts** the lower-priority
//!   branch that was running (a dropped coin interrupts wandering, or even
//!   the walk back to the owner);
//! - **multi-tick actions** (walking returns `Running` until arrival) and an
//!   endless one (wandering never finishes on its own);
//! - a world that changes **between ticks**: the main loop drops coins
//!   (from its own seeded RNG) and removes the coins the pet picked up;
//!   leaves see the world read-only, so the pet only records the pickup;
//! - an [`Observer`] that reports the running branch and every abort.
//!
//! ```text
//! cargo run --release --example pet -- --seed 7 --ticks 60
//! ```

use canopy::{Agent, Builder, Event, EventKind, NodeKind, Observer, Status, Tree};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;

type Pos = (i32, i32);

/// The grid is `SIZE × SIZE`.
const SIZE: i32 = 16;
/// A coin this close (in king moves) counts as nearby.
const NEAR: i32 = 4;
/// Ticks away from the owner after which the pet heads back.
const TOO_LONG: u32 = 12;

/// The shared world: read-only while the pet ticks.
struct World {
    owner: Pos,
    coins: Vec<Pos>,
}

/// The pet's own data.
struct Pet {
    pos: Pos,
    coins: u32,
    away: u32,           // ticks since the pet was last next to its owner
    heading: Pos,        // direction of wandering, changed now and then
    picked: Option<Pos>, // a coin picked up this tick, for the main loop to remove
    rng: Pcg32,          // the pet's own random stream: wandering replays exactly
}

fn dist(a: Pos, b: Pos) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

/// The nearest cell inside the fence.
fn on_grid(p: Pos) -> Pos {
    (p.0.clamp(0, SIZE - 1), p.1.clamp(0, SIZE - 1))
}

/// One king move toward `to`.
fn step(pos: &mut Pos, to: Pos) {
    pos.0 += (to.0 - pos.0).signum();
    pos.1 += (to.1 - pos.1).signum();
}

fn nearest_coin(world: &World, pos: Pos) -> Option<Pos> {
    world.coins.iter().copied().min_by_key(|&c| dist(c, pos))
}

/// How the log shows a leaf's status.
fn mark(s: Status) -> &'static str {
    match s {
        Status::Running => "…",
        Status::Success => "✓",
        Status::Failure => "✗",
    }
}

/// `Success` once there, `Running` until then.
fn arrived(there: bool) -> Status {
    if there {
        Status::Success
    } else {
        Status::Running
    }
}

fn build() -> Tree<Pet, World> {
    let b = Builder::<Pet, World>::new();
    let coin_nearby = b.condition("coin nearby?", |cx| {
        nearest_coin(cx.world, cx.agent.pos).is_some_and(|c| dist(c, cx.agent.pos) <= NEAR)
    });
    let fetch = b.action("fetch coin", |cx| {
        let Some(coin) = nearest_coin(cx.world, cx.agent.pos) else {
            return Status::Failure;
        };
        step(&mut cx.agent.pos, coin);
        if cx.agent.pos == coin {
            cx.agent.coins += 1;
            cx.agent.picked = Some(coin); // the main loop takes it off the map
        }
        arrived(cx.agent.pos == coin)
    });
    let too_long = b.condition("away too long?", |cx| cx.agent.away >= TOO_LONG);
    let back = b.action("return to owner", |cx| {
        step(&mut cx.agent.pos, cx.world.owner);
        arrived(dist(cx.agent.pos, cx.world.owner) <= 1)
    });
    let wander = b.action("wander", |cx| {
        let pet = &mut *cx.agent;
        if pet.rng.random_range(0..4) == 0 {
            pet.heading = (pet.rng.random_range(-1..=1), pet.rng.random_range(-1..=1));
        }
        let next = (pet.pos.0 + pet.heading.0, pet.pos.1 + pet.heading.1);
        if on_grid(next) == next {
            pet.pos = next;
        } else {
            pet.heading = (-pet.heading.0, -pet.heading.1); // bounce off the fence
        }
        Status::Running // wandering never ends by itself
    });
    let root = b.reactive_selector(
        "pet",
        [
            b.sequence("collect coin", [coin_nearby, fetch]),
            b.sequence("go back to owner", [too_long, back]),
            wander,
        ],
    );
    b.build(root).expect("the pet tree is well formed")
}

/// Per tick: the branch of the root that ran last, the action leaf that ran
/// last with its status, and the nodes aborted.
struct Report<'t> {
    tree: &'t Tree<Pet, World>,
    branch: &'t str,
    leaf: (&'t str, Status),
    aborted: Vec<&'t str>,
}

impl Observer for Report<'_> {
    fn event(&mut self, e: Event) {
        let node = self.tree.node(e.node);
        match e.kind {
            EventKind::Update(s) => {
                let root = self.tree.node(self.tree.root());
                if root.children().any(|branch| branch.id() == e.node) {
                    self.branch = node.name();
                }
                if matches!(node.kind(), NodeKind::Action(_)) {
                    self.leaf = (node.name(), s);
                }
            }
            EventKind::Abort => self.aborted.push(node.name()),
            _ => {}
        }
    }
}

fn flag(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    let Some(i) = args.iter().position(|a| a == name) else {
        return default;
    };
    args.get(i + 1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            eprintln!("usage: pet [--seed N] [--ticks N]");
            std::process::exit(2)
        })
}

fn main() {
    let (seed, ticks) = (flag("--seed", 1), flag("--ticks", 40));
    let tree = build();
    let owner = (SIZE / 2, SIZE / 2);
    let mut world = World {
        owner,
        coins: vec![],
    };
    let mut pet = Pet {
        pos: owner,
        coins: 0,
        away: 0,
        heading: (1, 0),
        picked: None,
        rng: Pcg32::seed_from_u64(seed),
    };
    // The world's coin drops come from a second, independent stream.
    let mut drops = Pcg32::seed_from_u64(seed ^ 0xC0_1D_C0_1D);
    let mut agent = Agent::new(&tree);
    let (branch, leaf, aborted) = ("", ("", Status::Running), vec![]);
    let mut report = Report {
        tree: &tree,
        branch,
        leaf,
        aborted,
    };

    println!(
        "seed {seed}: owner at {owner:?}, coin nearby = within {NEAR}, too long = {TOO_LONG} ticks"
    );
    println!("tick  branch            leaf                 pos       coins  away  on map");
    for t in 1..=ticks {
        // Every 6 ticks someone drops a coin not far from the pet.
        if t % 6 == 2 {
            let (dx, dy) = (drops.random_range(-6..=6), drops.random_range(-6..=6));
            let coin = on_grid((pet.pos.0 + dx, pet.pos.1 + dy));
            if !world.coins.contains(&coin) {
                world.coins.push(coin);
                println!("      + a coin drops at {coin:?}");
            }
        }

        report.aborted.clear();
        agent.tick_observed(&tree, &mut pet, &world, &mut report);

        // Apply the pet's pickup to the world, and advance its clock.
        if let Some(coin) = pet.picked.take() {
            world.coins.retain(|&c| c != coin); // at most one coin per cell
        }
        let near_owner = dist(pet.pos, owner) <= 1;
        pet.away = if near_owner { 0 } else { pet.away + 1 };

        let (name, status) = report.leaf;
        let leaf = format!("{name} {}", mark(status));
        let (pos, on_map) = (format!("{:?}", pet.pos), world.coins.len());
        let (branch, coins, away) = (report.branch, pet.coins, pet.away);
        println!("{t:>4}  {branch:<16}  {leaf:<19}  {pos:<8}  {coins:>5}  {away:>4}  {on_map:>6}");
        if !report.aborted.is_empty() {
            let aborted = report.aborted.join(", ");
            println!("      ! {branch} took over; aborted: {aborted}");
        }
    }
}
