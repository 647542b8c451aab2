//! A registry of node types with what running its trees needs: the
//! agent data, the world, the game's step and services, the state machine
//! types. The subcommands it carries out are in `commands.rs`.

use canopy_core::Status;
use canopy_data::Registry;
use canopy_fsm::MachineRegistry;

use crate::game::Game;
use crate::machine::{MachineTypes, Registered};

/// Node types a [`Cli`](crate::Cli) offers under `--types`
/// ([`Cli::with_types`](crate::Cli::with_types)): a registry, and for `run`
/// and `bench` each agent's data and the world.
///
/// ```
/// use canopy_cli::Types;
/// use canopy_data::Registry;
///
/// /// A game's agent data.
/// struct Npc { id: u32, hunger: f32 }
///
/// let types = Types::new(Registry::<Npc, ()>::new())
///     .agent(|id| Npc { id, hunger: 0.0 })
///     .world(());
/// # let _ = types;
/// ```
pub struct Types<A, W> {
    pub(crate) registry: Registry<A, W>,
    pub(crate) agent: Option<Box<dyn Fn(u32) -> A>>,
    pub(crate) world: Option<W>,
    pub(crate) game: Game<A, W>,
    pub(crate) machines: Option<Box<dyn MachineTypes<A, W>>>,
}

impl<A, W> std::fmt::Debug for Types<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Types")
            .field("registry", &self.registry)
            .field("runs", &(self.agent.is_some() && self.world.is_some()))
            .field("updates_world", &self.game.update.is_some())
            .field("answers_async", &self.game.answer.is_some())
            .field("machines", &self.machines.is_some())
            .finish()
    }
}

impl<A: 'static, W: 'static> Types<A, W> {
    /// The node types of `registry`; trees are checked, printed, drawn,
    /// exported, replayed and inspected with them.
    pub fn new(registry: Registry<A, W>) -> Self {
        Types {
            registry,
            agent: None,
            world: None,
            game: Game {
                update: None,
                answer: None,
            },
            machines: None,
        }
    }

    /// Each agent's data for `run` and `bench`, made from the agent's id.
    pub fn agent(mut self, make: impl Fn(u32) -> A + 'static) -> Self {
        self.agent = Some(Box::new(make));
        self
    }

    /// The world every agent sees in `run` and `bench`.
    pub fn world(mut self, world: W) -> Self {
        self.world = Some(world);
        self
    }

    /// The world's own step in `run` and `bench`: `update` is called
    /// before every tick of the crowd with the tick about to run (from 1),
    /// as the game moves its world between AI ticks. Without it the world
    /// stays as [`Types::world`] made it.
    pub fn world_update(mut self, update: impl FnMut(&mut W, u32) + Send + 'static) -> Self {
        self.game.update = Some(Box::new(update));
        self
    }

    /// Answer async leaves in `run` and `bench` as the game's services
    /// would (in trees, and in the tree states of machine files): after
    /// each agent's tick or update, `answer` is asked about each of its
    /// waiting async leaves (the agent's data, to write the result into;
    /// the world; the ticket; the ticks it has waited) and `Some(status)`
    /// completes the wait. Without
    /// it nothing completes them, and agents wait for ever.
    pub fn answer_async(
        mut self,
        answer: impl Fn(&mut A, &W, canopy_core::Ticket, u32) -> Option<Status> + Send + Sync + 'static,
    ) -> Self {
        self.game.answer = Some(Box::new(answer));
        self
    }

    /// The state types and triggers state machine files may name:
    /// `register` fills a [`MachineRegistry`] as the game's own loading
    /// does (its tree registry is lent this one's node types for each
    /// command). Without it, machine files are read with stand-ins: see
    /// [`Cli::machines`](crate::Cli::machines).
    pub fn machines<T>(mut self, register: impl FnOnce(&mut MachineRegistry<A, W, T>)) -> Self
    where
        A: Send,
        W: Sync,
        T: Copy + Eq + std::fmt::Debug + Send + Sync + 'static,
    {
        let mut registry = MachineRegistry::new(Registry::empty());
        register(&mut registry);
        self.machines = Some(Box::new(Registered(registry)));
        self
    }

    /// Answer every async leaf with `status` once it has waited `ticks`
    /// ticks: [`Types::answer_async`] for a stand-in service.
    pub fn complete_after(self, ticks: u32, status: Status) -> Self {
        self.answer_async(move |_, _, _, waited| (waited >= ticks).then_some(status))
    }
}
