//! Entities with brains tick in a Bevy app, write intents that a game
//! system acts on, report finished roots, and wait for async answers that
//! another system gives.

use bevy_app::{App, TaskPoolPlugin, Update};
use bevy_asset::{AssetPlugin, Assets, Handle};
use bevy_ecs::message::Messages;
use bevy_ecs::prelude::*;
use canopy_bevy::{
    Brain, BrainFinished, CanopyPlugin, CanopySystems, NodeChange, NodeEvent, TreeAsset,
    WaitAborted,
};
use canopy_core::{Builder, Completion, Status, Ticket, Tree};
use canopy_data::Registry;

/// A walker on a line: where it is, the step its tree asks for, the
/// request its async leaf is waiting on.
#[derive(Component, Default)]
struct Walker {
    x: i32,
    step: i32,
    request: Option<Ticket>,
    /// The tickets its async leaves heard aborted (their own abort code).
    heard: Vec<Ticket>,
}

/// The world view: where everyone walks to.
#[derive(Resource)]
struct Goal(i32);

type Trees = Assets<TreeAsset<Walker, Goal>>;

fn app(plugin: CanopyPlugin<Walker, Goal>) -> App {
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), AssetPlugin::default()))
        .add_plugins(plugin)
        .insert_resource(Goal(3))
        .add_systems(Update, walk.after(CanopySystems::Tick));
    app
}

/// The game's movement: acts on every walker's intent at once.
fn walk(mut walkers: Query<&mut Walker>) {
    for mut w in &mut walkers {
        w.x += w.step;
        w.step = 0;
    }
}

fn toward_goal() -> Tree<Walker, Goal> {
    let b = Builder::<Walker, Goal>::new();
    b.build(b.action("step toward the goal", |cx| {
        cx.agent.step = (cx.world.0 - cx.agent.x).signum();
        if cx.agent.step == 0 {
            Status::Success
        } else {
            Status::Running
        }
    }))
    .unwrap()
}

fn add_tree(app: &mut App, tree: Tree<Walker, Goal>) -> Handle<TreeAsset<Walker, Goal>> {
    app.world_mut()
        .resource_mut::<Trees>()
        .add(TreeAsset::new(tree))
}

fn statuses(app: &App, entities: &[Entity]) -> Vec<Option<Status>> {
    entities
        .iter()
        .map(|&e| app.world().get::<Brain<Walker, Goal>>(e).unwrap().status())
        .collect()
}

#[test]
fn walkers_reach_the_goal_through_intents_that_a_game_system_carries_out() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    let tree = add_tree(&mut app, toward_goal());
    let starts = [0, 5, 3];
    let walkers: Vec<Entity> = starts
        .iter()
        .map(|&x| {
            let walker = Walker {
                x,
                ..Walker::default()
            };
            app.world_mut()
                .spawn((walker, Brain::new(tree.clone())))
                .id()
        })
        .collect();
    let (r, s) = (Some(Status::Running), Some(Status::Success));
    let mut seen = Vec::new();
    for _ in 0..4 {
        app.update();
        seen.push(statuses(&app, &walkers));
    }
    assert_eq!(
        seen,
        [[r, r, s], [r, r, s], [r, s, s], [s, s, s]].map(Vec::from)
    );
    for &w in &walkers {
        assert_eq!(app.world().get::<Walker>(w).unwrap().x, 3);
    }
}

#[test]
fn every_brain_shares_the_one_tree_of_its_handle() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    let tree = add_tree(&mut app, toward_goal());
    for x in 0..100 {
        let walker = Walker {
            x,
            ..Walker::default()
        };
        app.world_mut().spawn((walker, Brain::new(tree.clone())));
    }
    app.update();
    let shared = app
        .world()
        .resource::<Trees>()
        .get(&tree)
        .unwrap()
        .tree()
        .clone();
    let mut brains = app.world_mut().query::<&Brain<Walker, Goal>>();
    let on_shared = brains
        .iter(app.world())
        .filter(|b| std::sync::Arc::ptr_eq(b.tree().unwrap(), &shared))
        .count();
    assert_eq!(on_shared, 100);
    // The asset's one Arc, one per brain, and this test's.
    assert_eq!(std::sync::Arc::strong_count(&shared), 102);
}

#[test]
fn a_brain_waits_without_ticking_until_its_tree_is_there() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    let handle = app.world().resource::<Trees>().reserve_handle();
    let walker = app
        .world_mut()
        .spawn((Walker::default(), Brain::new(handle.clone())))
        .id();
    app.update();
    assert_eq!(statuses(&app, &[walker]), [None]);
    assert!(
        app.world()
            .get::<Brain<Walker, Goal>>(walker)
            .unwrap()
            .agent()
            .is_none()
    );
    let tree = TreeAsset::new(toward_goal());
    app.world_mut()
        .resource_mut::<Trees>()
        .insert(&handle, tree)
        .unwrap();
    app.update();
    assert_eq!(statuses(&app, &[walker]), [Some(Status::Running)]);
}

#[test]
fn finished_roots_are_reported_as_messages_only_when_asked_for() {
    let mut quiet = app(CanopyPlugin::new(Registry::new()));
    let tree = add_tree(&mut quiet, toward_goal());
    quiet
        .world_mut()
        .spawn((Walker::default(), Brain::new(tree)));
    quiet.update();
    assert!(
        quiet
            .world()
            .get_resource::<Messages<BrainFinished>>()
            .is_none()
    );

    let mut app = app(CanopyPlugin::new(Registry::new()).report_finished());
    let tree = add_tree(&mut app, toward_goal());
    let near = Walker {
        x: 2,
        ..Walker::default()
    };
    let near = app.world_mut().spawn((near, Brain::new(tree.clone()))).id();
    let far = app
        .world_mut()
        .spawn((Walker::default(), Brain::new(tree)))
        .id();
    let mut reports = Vec::new();
    for _ in 0..4 {
        app.update();
        let mut messages = app.world_mut().resource_mut::<Messages<BrainFinished>>();
        let mut frame: Vec<BrainFinished> = messages.drain().collect();
        frame.sort_by_key(|m| m.entity.index_u32());
        reports.push(frame);
    }
    let done = |entity| BrainFinished {
        entity,
        status: Status::Success,
    };
    assert_eq!(
        reports,
        [
            vec![],
            vec![done(near)],
            vec![done(near)],
            vec![done(near), done(far)]
        ]
    );
}

/// A system that answers every waiting request, after the tick.
fn answer(mut walkers: Query<(&mut Walker, &mut Brain<Walker, Goal>)>, mut log: ResMut<Answers>) {
    for (mut walker, mut brain) in &mut walkers {
        if let Some(ticket) = walker.request.take() {
            log.0.push(brain.complete(ticket, Status::Success));
        }
    }
}

#[derive(Resource, Default)]
struct Answers(Vec<Option<Completion>>);

#[test]
fn an_async_leaf_finishes_when_a_bevy_system_completes_its_ticket() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    app.init_resource::<Answers>()
        .add_systems(Update, answer.after(CanopySystems::Tick));
    let b = Builder::<Walker, Goal>::new();
    let ask = b.async_action("ask the quartermaster", |cx, ticket| {
        cx.agent.request = Some(ticket);
        Status::Running
    });
    let tree = add_tree(&mut app, b.build(ask).unwrap());
    let walker = app
        .world_mut()
        .spawn((Walker::default(), Brain::new(tree)))
        .id();
    app.update();
    assert_eq!(statuses(&app, &[walker]), [Some(Status::Running)]);
    app.update();
    assert_eq!(statuses(&app, &[walker]), [Some(Status::Success)]);
    assert_eq!(
        app.world().resource::<Answers>().0,
        [Some(Completion::Completed)]
    );
}

#[test]
fn event_mode_brains_give_the_same_statuses_as_tick_mode_ones() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    let b = Builder::<Walker, Goal>::new();
    let tree = b
        .build(b.sequence(
            "wait then walk",
            [
                b.wait("rest", 3),
                b.action("step", |cx| {
                    cx.agent.step = (cx.world.0 - cx.agent.x).signum();
                    Status::from_bool(cx.agent.step == 0)
                }),
            ],
        ))
        .unwrap();
    let tree = add_tree(&mut app, tree);
    let ticking = app
        .world_mut()
        .spawn((Walker::default(), Brain::new(tree.clone())))
        .id();
    let event = Brain::new(tree).with_mode(canopy_core::Mode::Event);
    let sleeping = app.world_mut().spawn((Walker::default(), event)).id();
    let mut seen = Vec::new();
    for _ in 0..8 {
        app.update();
        let [a, b] = statuses(&app, &[ticking, sleeping])[..] else {
            unreachable!()
        };
        assert_eq!(a, b);
        seen.push(a.unwrap());
    }
    let (r, f) = (Status::Running, Status::Failure);
    // Rest 3 ticks, step (the walker is not there yet: Failure), again.
    assert_eq!(seen, [r, r, r, f, r, r, r, f]);
    let mode = app
        .world()
        .get::<Brain<Walker, Goal>>(sleeping)
        .unwrap()
        .agent()
        .unwrap()
        .mode();
    assert_eq!(mode, canopy_core::Mode::Event);
}

#[test]
fn watched_nodes_report_when_they_start_and_end_and_unwatched_brains_say_nothing() {
    let mut app = app(CanopyPlugin::new(Registry::new()).report_node_events());
    let b = Builder::<Walker, Goal>::new();
    let errand = b.sequence(
        "errand",
        [b.wait("walk", 2), b.action("buy", |_| Status::Success)],
    );
    let tree = add_tree(&mut app, b.build(errand).unwrap());
    let watched = Brain::new(tree.clone()).watching(["walk", "buy"]);
    let shopper = app.world_mut().spawn((Walker::default(), watched)).id();
    app.world_mut().spawn((Walker::default(), Brain::new(tree)));
    let mut frames = Vec::new();
    for _ in 0..4 {
        app.update();
        let mut messages = app.world_mut().resource_mut::<Messages<NodeEvent>>();
        let frame: Vec<NodeEvent> = messages.drain().collect();
        frames.push(frame);
    }
    let brain = app.world().get::<Brain<Walker, Goal>>(shopper).unwrap();
    let node = |name: &str| {
        brain
            .tree()
            .unwrap()
            .nodes()
            .find(|n| n.name() == name)
            .unwrap()
            .id()
    };
    let (walk, buy) = (node("walk"), node("buy"));
    let event = |node, change| NodeEvent {
        entity: shopper,
        node,
        change,
    };
    let done = NodeChange::Ended(Status::Success);
    assert_eq!(
        frames,
        [
            vec![event(walk, NodeChange::Started)],
            vec![],
            vec![
                event(walk, done),
                event(buy, NodeChange::Started),
                event(buy, done)
            ],
            vec![event(walk, NodeChange::Started)],
        ]
    );
}

/// Walkers at the goal rest; the others ask for a route and wait for it,
/// hearing (in their own data) when the wait is aborted.
fn patient() -> Tree<Walker, Goal> {
    let b = Builder::<Walker, Goal>::new();
    b.build(b.reactive_selector(
        "walk",
        [
            b.condition("at the goal?", |cx| cx.world.0 == cx.agent.x),
            b.async_action_with_abort(
                "ask for a route",
                |cx, ticket| {
                    cx.agent.request = Some(ticket);
                    Status::Running
                },
                |cx, ticket| cx.agent.heard.push(ticket),
            ),
        ],
    ))
    .unwrap()
}

/// Half tick mode, half event mode: `n` walkers of each.
fn spawn_patient(app: &mut App, tree: &Handle<TreeAsset<Walker, Goal>>, n: usize) -> Vec<Entity> {
    (0..2 * n)
        .map(|i| {
            let mode = [canopy_core::Mode::Tick, canopy_core::Mode::Event][i % 2];
            let brain = Brain::new(tree.clone()).with_mode(mode);
            app.world_mut().spawn((Walker::default(), brain)).id()
        })
        .collect()
}

fn wait_aborted(app: &mut App) -> Vec<WaitAborted> {
    let mut messages = app.world_mut().resource_mut::<Messages<WaitAborted>>();
    messages.drain().collect()
}

#[test]
fn each_aborted_wait_is_one_wait_aborted_message_with_its_entity_and_ticket_in_both_modes() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    let tree = add_tree(&mut app, patient());
    let walkers = spawn_patient(&mut app, &tree, 100);
    for _ in 0..3 {
        app.update();
    }
    assert!(wait_aborted(&mut app).is_empty());
    // The goal comes to them: the condition above the leaf now holds.
    app.world_mut().resource_mut::<Goal>().0 = 0;
    app.update();
    let mut sent = wait_aborted(&mut app);
    sent.sort_by_key(|m| m.entity.index_u32());
    assert_eq!(sent.len(), walkers.len());
    let leaf = patient().nodes().nth(2).unwrap().id();
    for (message, &walker) in sent.iter().zip(&walkers) {
        let data = app.world().get::<Walker>(walker).unwrap();
        let asked = data.request.unwrap();
        assert_eq!(
            *message,
            WaitAborted {
                entity: walker,
                node: leaf,
                ticket: asked
            }
        );
        assert_eq!(data.heard, [asked], "the leaf's own abort code ran once");
    }
    for _ in 0..3 {
        app.update();
    }
    assert!(wait_aborted(&mut app).is_empty(), "an abort is sent once");
}

#[test]
fn a_reload_that_removes_a_waiting_leaf_sends_wait_aborted_once_per_brain() {
    let mut app = app(CanopyPlugin::new(Registry::new()));
    let tree = add_tree(&mut app, patient());
    let walkers = spawn_patient(&mut app, &tree, 50);
    app.update();
    app.update();
    let b = Builder::<Walker, Goal>::new();
    let idle = b
        .build(b.reactive_selector(
            "walk",
            [
                b.condition("at the goal?", |cx| cx.world.0 == cx.agent.x),
                b.action("idle", |_| Status::Running),
            ],
        ))
        .unwrap();
    app.world_mut()
        .resource_mut::<Trees>()
        .insert(&tree, TreeAsset::new(idle))
        .unwrap();
    // The asset's change is seen by the next frame's reload.
    app.update();
    app.update();
    let mut sent = wait_aborted(&mut app);
    sent.sort_by_key(|m| m.entity.index_u32());
    let entities: Vec<Entity> = sent.iter().map(|m| m.entity).collect();
    assert_eq!(entities, walkers);
    for message in &sent {
        let data = app.world().get::<Walker>(message.entity).unwrap();
        assert_eq!(message.ticket, data.request.unwrap());
        assert_eq!(data.heard, [message.ticket]);
    }
    app.update();
    assert!(wait_aborted(&mut app).is_empty());
}
