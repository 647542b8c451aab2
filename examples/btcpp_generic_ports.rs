//! BehaviorTree.CPP's generic-ports tutorial on canopy: a port of the
//! game's own type — a 2D position — passed from one node to another
//! through a blackboard key, and written in the XML as BehaviorTree.CPP
//! writes it, `x;y`.
//!
//! A type of your own becomes a blackboard value with two small steps: it
//! is plain bytes (`Pod`, so a slot holds it in place, with no allocation)
//! and [`board_value!`](canopy::board_value) names it — with `from_text`,
//! the counterpart of BehaviorTree.CPP's `convertFromString<Position2D>`, so
//! that a script can assign it a string (`OtherGoal := '-1;3'`, as the
//! tutorial's tree does). To be written in a file it reads as one of the
//! kinds files hold ([`FromParam`]), here a point `[f64; 2]`: a value
//! written in a port is converted when the tree loads, so
//! `target="1;2;3"` for a 2D position is an error before the first tick.
//!
//! ```text
//! cargo run --example btcpp_generic_ports
//! ```

use canopy::bytemuck::{Pod, Zeroable};
use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{
    Agent, Ctx, Input, Output, Status,
    convert::ConvertError,
    params::{FromParam, Literal, ParamKind, ParamValue},
};

/// A position on the floor, in metres.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
struct Position2D {
    x: f64,
    y: f64,
}
/// `x;y`, as BehaviorTree.CPP's tutorial converts a `Position2D`.
fn position(text: &str) -> Result<Position2D, ConvertError> {
    let [x, y] = canopy::convert::text_to_point::<2>(text)?;
    Ok(Position2D { x, y })
}
canopy::board_value!(Position2D, from_text = position);

/// Written in a file as a point: `[x, y]` in JSON, `x;y` in XML.
impl FromParam for Position2D {
    fn kind() -> ParamKind {
        <[f64; 2]>::kind()
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        <[f64; 2]>::from_value(value).map(|[x, y]| Position2D { x, y })
    }
    fn to_literal(&self) -> Literal {
        [self.x, self.y].to_literal()
    }
    const NUMERIC: bool = true;
}

/// Works out where to go.
#[derive(Params)]
struct CalculateGoal {
    /// The goal it worked out.
    goal: Output<Position2D>,
}

/// Reports a target.
#[derive(Params)]
struct PrintTarget {
    /// The target: a key, or `x;y`.
    target: Input<Position2D>,
}

/// The targets reported, in order: the agent's data.
type Seen = Vec<Position2D>;

fn registry() -> Registry<Seen, ()> {
    let mut registry = Registry::new();
    registry
        .action("CalculateGoal", |p: CalculateGoal| {
            move |cx: &mut Ctx<Seen, ()>| {
                cx.board.set(&p.goal, Position2D { x: 1.5, y: 2.25 });
                Status::Success
            }
        })
        .expect("a new name");
    registry
        .action("PrintTarget", |p: PrintTarget| {
            move |cx: &mut Ctx<Seen, ()>| {
                let target = cx.board.get(&p.target);
                println!("target: [{:.2}, {:.2}]", target.x, target.y);
                cx.agent.push(target);
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

const GOALS: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Goals">
    <Sequence>
      <CalculateGoal goal="{goal_position}"/>
      <PrintTarget target="{goal_position}"/>
      <PrintTarget target="-1;3"/>
      <Script code="OtherGoal := '-1;3'"/>
      <PrintTarget target="{OtherGoal}"/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

fn main() {
    let options = XmlOptions::default();
    let tree = load_str(&registry(), GOALS, "goals.xml", None, &options).expect("the tree loads");
    let slot = &tree.slots()[0];
    println!("slot {:?} holds {}", &*slot.key, slot.ty);
    assert_eq!(
        (&*slot.key, slot.ty.name()),
        ("goal_position", "Position2D")
    );

    let mut seen = Seen::new();
    let status = Agent::new(&tree).tick(&tree, &mut seen, &());
    assert_eq!(status, Status::Success);
    assert_eq!(
        seen,
        [
            Position2D { x: 1.5, y: 2.25 },
            Position2D { x: -1.0, y: 3.0 },
            Position2D { x: -1.0, y: 3.0 }
        ]
    );

    let three = GOALS.replace("-1;3", "1;2;3");
    let refused = load_str(&registry(), &three, "goals.xml", None, &options)
        .expect_err("three numbers are not a 2D position");
    println!("refused at load: {refused}");
    assert_eq!(
        refused.to_string(),
        "goals.xml:7:7: <PrintTarget>: target: a point has 2 coordinates, written x;y; \
         \"1;2;3\" has 3"
    );
}
