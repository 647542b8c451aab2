//! Zero heap allocations per tick for the standard nodes reading their
//! ports from the blackboard and the entry-update nodes, counted by the
//! counting allocator.
//!
//! Its own test binary without the libtest harness (`harness = false`):
//! the allocator counts every thread's allocations, and the harness's own
//! threads would be counted too.

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Mode};
use canopy_counting::Counting;
use canopy_data::Registry;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Every node of the kind, its counters written by scripts, read through
/// ports converted from strings, unset and written again, over and over.
const TREE: &str = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <ReactiveSequence>
      <RunOnce then_skip="false">
        <Script code="t := 0; n := 2; ms := 150; s := 1; skip := false; goal := 0"/>
      </RunOnce>
      <Script code="t += 1; skip := t &gt; 50"/>
      <Fallback>
        <ScriptCondition code="t &lt; 3 || t &gt; 5"/>
        <Script code="goal := t"/>
      </Fallback>
      <Parallel success_count="{s}" failure_count="2">
        <Repeat num_cycles="{n}">
          <Sleep msec="{ms}"/>
        </Repeat>
        <RetryUntilSuccessful num_attempts="{n}">
          <Timeout msec="{ms}"><AlwaysFailure/></Timeout>
        </RetryUntilSuccessful>
        <ParallelAll max_failures="{n}">
          <Delay delay_msec="{ms}"><AlwaysSuccess/></Delay>
          <WaitValueUpdate entry="{goal}"><AlwaysSuccess/></WaitValueUpdate>
        </ParallelAll>
      </Parallel>
      <Fallback>
        <WasEntryUpdated entry="goal"/>
        <AlwaysSuccess/>
      </Fallback>
      <Sequence>
        <SkipUnlessUpdated entry="{goal}"><AlwaysSuccess/></SkipUnlessUpdated>
        <RunOnce then_skip="{skip}"><AlwaysSuccess/></RunOnce>
        <UnsetBlackboard key="goal"/>
        <Script code="goal := t"/>
      </Sequence>
    </ReactiveSequence>
  </BehaviorTree>
</root>"#;

fn main() {
    let registry = Registry::<(), ()>::new();
    let tree = load_str(&registry, TREE, "alloc.xml", None, &XmlOptions::default()).unwrap();
    for mode in [Mode::Tick, Mode::Event] {
        let mut agents: Vec<Agent> = (0..200)
            .map(|_| {
                let mut agent = Agent::new(&tree);
                agent.set_mode(&tree, mode);
                agent
            })
            .collect();
        // Warm up: every agent's memory is laid out, its first runs done.
        for agent in &mut agents {
            for _ in 0..20 {
                agent.tick(&tree, &mut (), &());
            }
        }
        let before = canopy_counting::stats().allocations;
        // Ticks ending Running, Success and Failure.
        let mut statuses = [0u32; 3];
        for _ in 0..100 {
            for agent in &mut agents {
                statuses[agent.tick(&tree, &mut (), &()) as usize] += 1;
            }
        }
        let allocations = canopy_counting::stats().allocations - before;
        println!(
            "{mode:?} mode: 200 agents x 100 measured ticks (running, succeeding, failing: \
             {statuses:?}), {allocations} allocations"
        );
        assert!(
            statuses.iter().filter(|&&n| n > 0).count() >= 2,
            "the tree does not vary"
        );
        assert_eq!(allocations, 0, "{mode:?} mode");
    }
}
