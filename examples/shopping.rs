//! Shopping: the classic errand — leave home, pick a shop, buy a drink if the money allows — on canopy.
//!
//! A person leaves home each day, lets a coin flip choose between the
//! convenience store and the vending machine, walks there, buys an energy
//! drink if they still have ¥220, drinks it, and walks home. One run of the root to
//! completion is one day; the run stops when the money runs out (or after
//! `--days` days).
//!
//! What it demonstrates:
//! - a **Sequence** of the day's steps, resumed tick after tick;
//! - a **Selector** whose first option sits behind a **Guard** (the mood
//!   rolled for today), so the second option is the fallback;
//! - **multi-tick tasks**: walking returns `Running` until arrival, and a
//!   built-in `Wait` spends a tick drinking;
//! - a **Guard** "money ≥ 220" that fails the whole day when it refuses;
//! - deterministic randomness: the RNG lives in the person's data, not in
//!   the shared tree, so `--seed N` replays exactly;
//! - an [`Observer`] turning engine events into a one-line-per-tick log.
//!
//! ```text
//! cargo run --release --example shopping -- --seed 3 --days 5 --money 900
//! ```

use canopy::{Agent, Builder, Event, EventKind, NodeKind, Observer, Status, Tree};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;

/// Price of one energy drink, in yen.
const PRICE: u64 = 220;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shop {
    Store,
    Machine,
}

/// The agent's own data: everything that changes as the person acts.
struct Person {
    money: u64,
    /// Position on the town's one street (metres east of home).
    pos: i32,
    /// Where today's mood says to go (rolled by "pick a shop").
    mood: Shop,
    rng: Pcg32,
}

/// The shared world: where things are on the street.
struct Town {
    home: i32,
    machine: i32,
    store: i32,
}

/// One step toward `to`: `Running` until the walker stands on it.
fn walk(pos: &mut i32, to: i32) -> Status {
    *pos += (to - *pos).signum();
    if *pos == to {
        Status::Success
    } else {
        Status::Running
    }
}

fn build() -> Tree<Person, Town> {
    let b = Builder::<Person, Town>::new();
    // Conditions and guards only see `&Person`, so the coin is flipped by an
    // action and the guard on the store reads the result.
    let pick = b.action("pick a shop", |cx| {
        let heads = cx.agent.rng.random_range(0..2) == 0;
        cx.agent.mood = if heads { Shop::Store } else { Shop::Machine };
        Status::Success
    });
    let store = b.action("walk to the store", |cx| {
        walk(&mut cx.agent.pos, cx.world.store)
    });
    let machine = b.action("walk to the vending machine", |cx| {
        walk(&mut cx.agent.pos, cx.world.machine)
    });
    let buy = b.action("buy an energy drink", |cx| {
        cx.agent.money -= PRICE;
        Status::Success
    });
    let day = b.sequence(
        "day",
        [
            b.action("leave home", |_| Status::Success),
            pick,
            b.selector(
                "go to a shop",
                [
                    b.guard("store today?", |cx| cx.agent.mood == Shop::Store, store),
                    machine,
                ],
            ),
            b.guard("money ≥ 220?", |cx| cx.agent.money >= PRICE, buy),
            b.wait("drink it on the spot", 1),
            b.action("walk home", |cx| walk(&mut cx.agent.pos, cx.world.home)),
        ],
    );
    b.build(day).expect("the shopping tree is well formed")
}

/// Collects, for one tick, the leaves that ran and the guards that were
/// checked, as `name ✓` / `name …` / `name ✗`.
struct Trace<'t> {
    tree: &'t Tree<Person, Town>,
    steps: Vec<String>,
    /// A guard just entered (its place in `steps`, its name), until we
    /// know whether it let its child run.
    open_guard: Option<(usize, &'t str)>,
}

impl Observer for Trace<'_> {
    fn event(&mut self, e: Event) {
        let node = self.tree.node(e.node);
        let is_guard = matches!(node.kind(), NodeKind::Guard(_));
        match e.kind {
            EventKind::Enter if is_guard => {
                self.open_guard = Some((self.steps.len(), node.name()));
                self.steps.push(String::new());
            }
            // The guarded child being entered means the guard let it through.
            EventKind::Enter => {
                if let Some((i, name)) = self.open_guard.take() {
                    self.steps[i] = format!("{name} ✓");
                }
            }
            EventKind::Update(Status::Failure) if is_guard => {
                if let Some((i, name)) = self.open_guard.take() {
                    self.steps[i] = format!("{name} ✗");
                }
            }
            EventKind::Update(s) if node.children().len() == 0 => {
                let mark = match s {
                    Status::Running => "…",
                    Status::Success => "✓",
                    Status::Failure => "✗",
                };
                self.steps.push(format!("{} {mark}", node.name()));
            }
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
            eprintln!("usage: shopping [--seed N] [--days N] [--money N]");
            std::process::exit(2)
        })
}

fn main() {
    let (seed, days, money) = (flag("--seed", 1), flag("--days", 5), flag("--money", 500));
    let tree = build();
    let town = Town {
        home: 0,
        machine: -3,
        store: 4,
    };
    let place = |pos: i32| match pos {
        p if p == town.home => "at home".to_string(),
        p if p == town.machine => "at the vending machine".to_string(),
        p if p == town.store => "at the store".to_string(),
        p => format!("on the street ({p})"),
    };
    let mut me = Person {
        money,
        pos: town.home,
        mood: Shop::Store,
        rng: Pcg32::seed_from_u64(seed),
    };
    let mut agent = Agent::new(&tree);
    let mut trace = Trace {
        tree: &tree,
        steps: Vec::new(),
        open_guard: None,
    };

    println!("seed {seed}: ¥{money} in the wallet; an energy drink costs ¥{PRICE}");
    println!("tick  root     money  where                   leaves run this tick");
    let mut day = 1;
    println!("── day {day}");
    loop {
        let status = agent.tick_observed(&tree, &mut me, &town, &mut trace);
        let steps = trace.steps.join(" → ");
        trace.steps.clear();
        let (tick, root, money, at) = (agent.ticks(), status.as_str(), me.money, place(me.pos));
        println!("{tick:>4}  {root:<7}  ¥{money:<4}  {at:<22}  {steps}");
        match status {
            Status::Running => {}
            Status::Failure => {
                println!("── ¥{money} is not enough for a drink: the errands end here");
                break;
            }
            Status::Success if day == days => {
                println!("── {days} days done, ¥{money} left");
                break;
            }
            Status::Success => {
                day += 1;
                println!("── day {day}");
            }
        }
    }
}
