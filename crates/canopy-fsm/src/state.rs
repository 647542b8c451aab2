//! What a state does: its enter, update and exit hooks, and the per-agent
//! data they share.
//!
//! A state is split like a node of the shared-node tree: the value
//! implementing [`State`] is part of the shared machine and holds only
//! parameters; what one agent needs while the state is active is its
//! [`State::Data`], plain bytes in the agent's runtime. `Data` must be
//! [`bytemuck::Pod`] for the same reasons as a node's task: the memory is
//! reused without destructors, an exit needs no cleanup, and an agent's
//! whole machine state stays copyable bytes — which is what lets a machine
//! run inside a tree leaf's task (see [`MachineLeaf`](crate::MachineLeaf)).
//!
//! Most states need no data and are a few closures: [`Hooks`].

use bytemuck::Pod;
use canopy_core::Ctx;
use std::fmt;

/// A state type with its own per-agent data.
///
/// Hooks see the agent and world through canopy's [`Ctx`]. An update may
/// return a trigger, which the machine then sends (see
/// [`FsmAgent::update`](crate::FsmAgent::update) for the exact order).
///
/// A `Charge` state that counts its own ticks and asks to leave after a
/// per-state number of them:
///
/// ```
/// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder, State};
/// use canopy_core::Ctx;
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// enum Go { Done }
///
/// struct Charge { ticks: u32 }
///
/// impl State<u32, (), Go> for Charge {
///     type Data = u32; // ticks spent charging, per agent
///     fn enter(&self, _cx: &mut Ctx<u32, ()>) -> u32 { 0 }
///     fn update(&self, spent: &mut u32, cx: &mut Ctx<u32, ()>) -> Option<Go> {
///         *spent += 1;
///         *cx.agent += 10;
///         (*spent == self.ticks).then_some(Go::Done)
///     }
/// }
///
/// let mut b = MachineBuilder::new();
/// b.state("Charge", Charge { ticks: 3 });
/// b.state("Full", Hooks::new());
/// b.transition("Charge", Go::Done, "Full");
/// b.start("Charge");
/// let machine = b.build().unwrap();
///
/// let (mut energy, mut agent) = (0, FsmAgent::new(&machine));
/// for _ in 0..5 { agent.update(&machine, &mut energy, &()); }
/// assert_eq!(energy, 30);
/// assert!(agent.is_in(&machine, "Full"));
/// ```
pub trait State<A, W, T>: Send + Sync + 'static {
    /// This state's per-agent data while it is active.
    type Data: Pod;

    /// The state becomes active: create its data.
    fn enter(&self, cx: &mut Ctx<A, W>) -> Self::Data;

    /// One update while active. Returning a trigger sends it.
    fn update(&self, data: &mut Self::Data, cx: &mut Ctx<A, W>) -> Option<T> {
        let _ = (data, cx);
        None
    }

    /// The state stops being active.
    fn exit(&self, data: &mut Self::Data, cx: &mut Ctx<A, W>) {
        let _ = (data, cx);
    }
}

/// An enter or exit hook.
type Hook<A, W> = Box<dyn Fn(&mut Ctx<A, W>) + Send + Sync>;
/// An update hook, which may fire a trigger.
type UpdateHook<A, W, T> = Box<dyn Fn(&mut Ctx<A, W>) -> Option<T> + Send + Sync>;

/// A state made of closures, without per-agent data; every hook is optional.
///
/// ```
/// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
///
/// // The alias fixes the agent, world and trigger types before the closures
/// // are checked, so their `cx` needs no annotation.
/// type H = Hooks<Vec<&'static str>, (), ()>;
/// let mut b = MachineBuilder::new();
/// b.state("Idle", H::new()
///     .on_enter(|cx| cx.agent.push("enter Idle"))
///     .on_update(|cx| { cx.agent.push("update Idle"); None })
///     .on_exit(|cx| cx.agent.push("exit Idle")));
/// b.start("Idle");
/// let machine = b.build().unwrap();
///
/// let (mut log, mut agent) = (Vec::new(), FsmAgent::new(&machine));
/// agent.update(&machine, &mut log, &());
/// agent.stop(&machine, &mut log, &());
/// assert_eq!(log, ["enter Idle", "update Idle", "exit Idle"]);
/// ```
pub struct Hooks<A, W, T> {
    enter: Option<Hook<A, W>>,
    update: Option<UpdateHook<A, W, T>>,
    exit: Option<Hook<A, W>>,
}

impl<A, W, T> fmt::Debug for Hooks<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("enter", &self.enter.is_some())
            .field("update", &self.update.is_some())
            .field("exit", &self.exit.is_some())
            .finish()
    }
}

impl<A, W, T> Default for Hooks<A, W, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A, W, T> Hooks<A, W, T> {
    /// A state whose hooks do nothing (a pure superstate, say).
    pub fn new() -> Self {
        Hooks {
            enter: None,
            update: None,
            exit: None,
        }
    }

    /// Run `f` when the state becomes active.
    pub fn on_enter(mut self, f: impl Fn(&mut Ctx<A, W>) + Send + Sync + 'static) -> Self {
        self.enter = Some(Box::new(f));
        self
    }

    /// Run `f` on each update while active; a returned trigger is sent.
    pub fn on_update(
        mut self,
        f: impl Fn(&mut Ctx<A, W>) -> Option<T> + Send + Sync + 'static,
    ) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Run `f` when the state stops being active.
    pub fn on_exit(mut self, f: impl Fn(&mut Ctx<A, W>) + Send + Sync + 'static) -> Self {
        self.exit = Some(Box::new(f));
        self
    }
}

impl<A: 'static, W: 'static, T: 'static> State<A, W, T> for Hooks<A, W, T> {
    type Data = ();

    fn enter(&self, cx: &mut Ctx<A, W>) {
        if let Some(f) = &self.enter {
            f(cx)
        }
    }

    fn update(&self, _: &mut (), cx: &mut Ctx<A, W>) -> Option<T> {
        self.update.as_ref().and_then(|f| f(cx))
    }

    fn exit(&self, _: &mut (), cx: &mut Ctx<A, W>) {
        if let Some(f) = &self.exit {
            f(cx)
        }
    }
}

/// A [`State`] with its data type erased, as the machine stores it. The
/// data lives in `mem`, exactly `data_size()` bytes, unaligned.
pub(crate) trait ErasedState<A, W, T>: Send + Sync {
    fn data_size(&self) -> usize;
    fn enter(&self, mem: &mut [u8], cx: &mut Ctx<A, W>);
    fn update(&self, mem: &mut [u8], cx: &mut Ctx<A, W>) -> Option<T>;
    fn exit(&self, mem: &mut [u8], cx: &mut Ctx<A, W>);
}

impl<A, W, T, S: State<A, W, T>> ErasedState<A, W, T> for S {
    fn data_size(&self) -> usize {
        size_of::<S::Data>()
    }

    fn enter(&self, mem: &mut [u8], cx: &mut Ctx<A, W>) {
        let data = State::enter(self, cx);
        mem.copy_from_slice(bytemuck::bytes_of(&data));
    }

    fn update(&self, mem: &mut [u8], cx: &mut Ctx<A, W>) -> Option<T> {
        let mut data: S::Data = bytemuck::pod_read_unaligned(mem);
        let fired = State::update(self, &mut data, cx);
        mem.copy_from_slice(bytemuck::bytes_of(&data));
        fired
    }

    fn exit(&self, mem: &mut [u8], cx: &mut Ctx<A, W>) {
        let mut data: S::Data = bytemuck::pod_read_unaligned(mem);
        State::exit(self, &mut data, cx);
        mem.copy_from_slice(bytemuck::bytes_of(&data));
    }
}
