//! Scripts' values, load errors and bounds, against a builder's keys.

use super::*;
use crate::{Agent, Builder};

/// Run `source` on a fresh agent of a tree whose builder made `setup`'s
/// keys; the value, or the fault in words.
fn run(setup: impl Fn(&Builder<(), ()>), source: &str) -> Result<ScriptValue, String> {
    let b = Builder::<(), ()>::new();
    setup(&b);
    let script = b.script(source).map_err(|e| e.to_string())?;
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    let mut board = agent.board_mut(&tree);
    script.run(&mut board).map_err(|f| script.explain(&f))
}

fn none(_: &Builder<(), ()>) {}

fn value(source: &str) -> ScriptValue {
    run(none, source).unwrap()
}

fn error(source: &str) -> String {
    run(none, source).unwrap_err()
}

fn num(n: f64) -> ScriptValue {
    ScriptValue::Number(n)
}

fn text(t: &str) -> ScriptValue {
    ScriptValue::Text(Text::new(t))
}

fn bool_(b: bool) -> ScriptValue {
    ScriptValue::Bool(b)
}

#[test]
fn arithmetic_is_in_doubles_with_behaviortree_cpp_precedence() {
    assert_eq!(value("1 + 2 * 3"), num(7.0));
    assert_eq!(value("(1 + 2) * 3"), num(9.0));
    assert_eq!(value("10 - 4 - 3"), num(3.0));
    assert_eq!(value("7 / 2"), num(3.5));
    assert_eq!(value("-2 * -3"), num(6.0));
    assert_eq!(value("1.5e2 + 0x10"), num(166.0));
    assert_eq!(value("1 / 0"), num(f64::INFINITY));
    // Bools are numbers to every operator.
    assert_eq!(value("true + 1"), num(2.0));
    // An integer literal too large for an int64_t reads as 0, as there.
    assert_eq!(value("99999999999999999999 + 1"), num(1.0));
}

#[test]
fn bitwise_operators_bind_tighter_than_comparisons() {
    // 4.10: `c & 1 == 1` is `(c & 1) == 1`, and `|` and `^` share a level.
    assert_eq!(value("3 & 1 == 1"), bool_(true));
    assert_eq!(value("2 & 1 == 1"), bool_(false));
    assert_eq!(value("1 | 2 ^ 3"), num(0.0));
    assert_eq!(value("6 & 3"), num(2.0));
    assert_eq!(value("6 | 3"), num(7.0));
    assert_eq!(value("6 ^ 3"), num(5.0));
    assert_eq!(value("~0"), num(-1.0));
    // `~` truncates, as BehaviorTree.CPP's cast does; `&` refuses a fraction.
    assert_eq!(value("~2.5"), num(-3.0));
    assert_eq!(
        error("1.5 & 1"),
        "column 5: a bitwise operator needs whole numbers, got 1.5"
    );
}

#[test]
fn comparisons_chain_and_numbers_are_equal_within_a_float_epsilon() {
    assert_eq!(value("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 4"), bool_(false));
    assert_eq!(value("1 == 1 || false"), bool_(true));
    assert_eq!(value("!(1 != 1)"), bool_(true));
    assert_eq!(value("'abc' < 'abd'"), bool_(true));
    assert_eq!(value("true == false"), bool_(false));
    assert_eq!(value("2.5 && 0"), bool_(false));
    // A whole number read as a bool must be 0 or 1, as BehaviorTree.CPP's
    // checked cast has it.
    assert_eq!(
        error("2 && 0"),
        "column 3: `&&` and `||` read a whole number as a bool only when it is 0 or 1"
    );
    assert_eq!(value("1 < 3 < 5"), bool_(true));
    assert_eq!(value("1 < 7 < 5"), bool_(false));
    assert_eq!(value("5 > 3 > 1 == true"), bool_(true));
    assert_eq!(value("0.1 + 0.2 == 0.3"), bool_(true));
    assert_eq!(value("1 == 1.0000001"), bool_(true));
    assert_eq!(value("1 == 1.001"), bool_(false));
}

#[test]
fn a_chain_stops_at_its_first_false_comparison() {
    let b = Builder::<(), ()>::new();
    let n = b.key::<i32>("n").unwrap();
    // The third operand assigns: it runs only when 5 < 3 is true.
    let script = b.script("5 < 3 < (n := 9)").unwrap();
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(script.run(&mut agent.board_mut(&tree)), Ok(bool_(false)));
    assert_eq!(agent.board(&tree).read(n), 0);
}

#[test]
fn strings_join_with_plus_and_with_two_dots_which_prints_numbers() {
    assert_eq!(value("'a' .. \"b\" .. 'c'"), text("abc"));
    assert_eq!(value("'My name is ' + 'Bob'"), text("My name is Bob"));
    assert_eq!(value("'v' .. 3"), text("v3"));
    assert_eq!(value("3 .. 'v'"), text("3v"));
    assert_eq!(value("'v' .. 1.5"), text("v1.500000"));
    assert_eq!(value("'v' .. (1 + 2)"), text("v3.000000"));
    assert_eq!(
        error("1..2"),
        "column 2: this operator has no meaning for these operands"
    );
    assert_eq!(
        error("'a' + 1"),
        "column 5: this operator has no meaning for these operands"
    );
}

#[test]
fn strings_compare_with_numbers_as_numbers() {
    assert_eq!(value("'3' == 3"), bool_(true));
    assert_eq!(value("2 < '10'"), bool_(true));
    assert_eq!(value("'2.5m' > 2"), bool_(true));
    assert_eq!(value("'true' == 1"), bool_(true));
    assert_eq!(
        error("'abc' == 1"),
        "column 7: a string that is no number was read as one"
    );
}

#[test]
fn the_ternary_takes_only_its_branch() {
    assert_eq!(value("1 < 2 ? 'yes' : 'no'"), text("yes"));
    assert_eq!(value("false ? 1 : true ? 2 : 3"), num(2.0));
    // The branch not taken would fault.
    assert_eq!(value("true ? 1 : 1.5 & 1"), num(1.0));
    // Branches ending in constants, with arithmetic after them.
    assert_eq!(value("4 * (false ? 3 : 2)"), num(8.0));
    assert_eq!(value("4 * (true ? 3 : 2)"), num(12.0));
    assert_eq!(value("(false ? 1 : 5) - 1"), num(4.0));
    assert_eq!(value("(true ? 1 : 5) - 1"), num(0.0));
    // A string condition is read as a number (BehaviorTree.CPP 4.10
    // casts it).
    assert_eq!(value("'2.5' ? 1 : 2"), num(1.0));
    assert_eq!(value("'0' ? 1 : 2"), num(2.0));
    assert_eq!(
        error("'x' ? 1 : 2"),
        "column 1: a string that is no number was read as one"
    );
}

#[test]
fn statements_need_no_semicolons_and_assignments_are_expressions() {
    assert_eq!(value("a := 1 b := a + 1 b"), num(2.0));
    assert_eq!(value("a := b := 4; a * b"), num(16.0));
    assert_eq!(value("(c := 2) + 1"), num(3.0));
}

#[test]
fn assignments_make_update_and_give_their_value() {
    let b = Builder::<(), ()>::new();
    let hp = b.key::<i32>("hp").unwrap();
    let script = b
        .script("hp += 5; hp *= 2; name := 'guard'; name += '!'; ok := hp == 30")
        .unwrap();
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    agent.board_mut(&tree).write(hp, 10);
    let got = script.run(&mut agent.board_mut(&tree)).unwrap();
    // A comparison's value, kept as BehaviorTree.CPP keeps it: the double 1.
    assert_eq!(got, num(1.0));
    assert_eq!(agent.board(&tree).read(hp), 30);
    let name = b.key::<Text>("name").unwrap();
    assert_eq!(agent.board(&tree).read(name).as_str(), "guard!");
    let ok = b.key::<f64>("ok").unwrap();
    assert_eq!(agent.board(&tree).read(ok), 1.0);
}

#[test]
fn a_key_made_by_a_script_takes_the_type_of_its_value() {
    let b = Builder::<(), ()>::new();
    b.script("n := 1; d := 1.5; s := 'x'; t := true").unwrap();
    assert!(b.key::<i64>("n").is_ok());
    assert!(b.key::<f64>("d").is_ok());
    assert!(b.key::<Text>("s").is_ok());
    // BehaviorTree.CPP 4.10 holds `true` as the double 1.
    assert!(b.key::<f64>("t").is_ok());
    assert_eq!(
        b.key::<i32>("n").unwrap_err().to_string(),
        "key \"n\" holds int64_t, not int"
    );
}

#[test]
fn integer_keys_refuse_fractions_and_out_of_range_numbers_at_run_time() {
    let u8_key = |b: &Builder<(), ()>| _ = b.key::<u8>("k").unwrap();
    assert_eq!(run(u8_key, "k := 255"), Ok(num(255.0)));
    assert_eq!(
        run(u8_key, "k := 256"),
        Err("column 1: 256 is out of the range of key \"k\"".to_string())
    );
    assert_eq!(
        run(u8_key, "k = -1"),
        Err("column 1: -1 is out of the range of key \"k\"".to_string())
    );
    assert_eq!(
        run(u8_key, "1; k := 0.5"),
        Err("column 4: cannot store 0.5 in key \"k\": it holds whole numbers".to_string())
    );
    let f32_key = |b: &Builder<(), ()>| _ = b.key::<f32>("f").unwrap();
    assert_eq!(run(f32_key, "f := 0.5; f * 2"), Ok(num(1.0)));
    // A key a script made of a whole number is an int64_t, as there.
    assert_eq!(
        error("n := 1; n += 0.5"),
        "column 9: cannot store 1.5 in key \"n\": it holds whole numbers"
    );
}

#[test]
fn assignments_convert_between_strings_and_the_keys_types() {
    let text_key = |b: &Builder<(), ()>| _ = b.key::<Text>("mode").unwrap();
    // A number into a string key: its text, as std::to_string prints it.
    assert_eq!(run(text_key, "mode := 42"), Ok(text("42")));
    assert_eq!(run(text_key, "mode := 0.5"), Ok(text("0.500000")));
    // A string into a typed key: the type's own conversion.
    let int_key = |b: &Builder<(), ()>| _ = b.key::<i32>("n").unwrap();
    assert_eq!(run(int_key, "n := '12abc'"), Ok(num(12.0)));
    assert_eq!(
        run(int_key, "n := 'twelve'"),
        Err(
            "column 1: the string does not convert to the type of key \"n\": it is not a number"
                .into()
        )
    );
    let point = |b: &Builder<(), ()>| _ = b.key::<[f64; 2]>("goal").unwrap();
    assert_eq!(run(point, "goal := '-1;3'; 1"), Ok(num(1.0)));
    // A key a script made reads a string with the scripts' own rules.
    assert_eq!(value("n := 1; n = 'true'; n"), num(1.0));
}

#[test]
fn keys_of_a_games_own_type_are_copied_whole_or_assigned_text() {
    let b = Builder::<(), ()>::new();
    let goal = b.key::<[f32; 2]>("goal").unwrap();
    let copy = b.script("goal := '3;4'; saved := goal").unwrap();
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    copy.run(&mut agent.board_mut(&tree)).unwrap();
    let saved = tree.key::<[f32; 2]>("saved").unwrap();
    assert_eq!(agent.board(&tree).read(goal), [3.0, 4.0]);
    assert_eq!(agent.board(&tree).read(saved), [3.0, 4.0]);
    let point = |b: &Builder<(), ()>| _ = b.key::<[f32; 2]>("goal").unwrap();
    assert_eq!(
        run(point, "goal + 1"),
        Err(
            "column 1: key \"goal\" holds canopy::Point2f, which scripts can only copy to \
             another key or assign a string to"
                .into()
        )
    );
}

#[test]
fn what_behaviortree_cpp_throws_on_fails_when_run_and_warns_at_load() {
    let b = Builder::<(), ()>::new();
    let script = b.script("false ? -'a' : 1").unwrap();
    assert_eq!(
        script
            .warnings()
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>(),
        [
            "column 9: `-`, `!` and `~` need a number, got a string: BehaviorTree.CPP throws \
          here when the script runs, and canopy fails the node"
        ]
    );
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(script.run(&mut agent.board_mut(&tree)), Ok(num(1.0)));
    assert_eq!(
        error("-'a'"),
        "column 1: `-`, `!` and `~` need a number, got a string"
    );
    assert_eq!(
        error("!'a'"),
        "column 1: `-`, `!` and `~` need a number, got a string"
    );
    let text_key = |b: &Builder<(), ()>| _ = b.key::<Text>("mode").unwrap();
    assert_eq!(
        run(text_key, "mode -= 'x'"),
        Err("column 1: `+=` joins two strings, and `+=`, `-=`, `*=`, `/=` update numbers; not these".into())
    );
}

#[test]
fn a_ternary_giving_a_number_or_a_string_is_refused_at_load() {
    assert_eq!(
        error("true ? 1 : 'a'"),
        "column 6: the two branches of `? :` give a number and a string; canopy's scripts \
         keep each value's type when they load, so both must give numbers or both strings"
    );
}

#[test]
fn unknown_keys_are_load_errors_with_a_suggestion() {
    let speed = |b: &Builder<(), ()>| _ = b.key::<f64>("speed").unwrap();
    assert_eq!(
        run(speed, "2 * sped"),
        Err("column 5: unknown key \"sped\" (did you mean \"speed\"?)".into())
    );
    assert_eq!(
        run(speed, "velocity = 1"),
        Err("column 1: unknown key \"velocity\"; `:=` makes a key, `=` sets one".into())
    );
    assert_eq!(error("x += 1"), "column 1: unknown key \"x\"");
}

#[test]
fn syntax_errors_say_what_was_expected_where() {
    assert_eq!(
        error("x := 1 +"),
        "column 8: expected an expression after `+`"
    );
    assert_eq!(error("(1 + 2"), "column 7: expected `)`, found the end");
    assert_eq!(
        error("1 + )"),
        "column 5: expected an expression after `+`, found `)`"
    );
    assert_eq!(
        error("1 2abc"),
        "column 4: a number cannot be followed by a letter (leave a space)"
    );
    assert_eq!(
        error("true ? 1"),
        "column 9: expected `:` of `? :`, found the end"
    );
    assert_eq!(error("'open"), "column 1: this string is never closed");
    assert_eq!(error("1 # 2"), "column 3: unexpected character \"#\"");
    assert_eq!(error(" ; ;"), "column 1: the script is empty");
    assert_eq!(
        error("1e999"),
        "column 1: number \"1e999\" is not a finite number"
    );
    assert_eq!(
        error(&format!("'{}'", "a".repeat(32))),
        "column 1: a string of 32 bytes; strings hold at most 31"
    );
    // Columns count characters, not bytes.
    assert_eq!(error("'é' +"), "column 5: expected an expression after `+`");
}

#[test]
fn enum_words_read_as_their_numbers() {
    struct Colours<'b>(&'b Builder<'b, (), ()>);
    impl Keys for Colours<'_> {
        fn find(&mut self, key: &str) -> Option<SlotRef> {
            let mut b = self.0;
            b.find(key)
        }
        fn create(&mut self, key: &str, ty: SlotType) -> Result<SlotRef, String> {
            let mut b = self.0;
            b.create(key, ty)
        }
        fn known(&self) -> Vec<String> {
            let b = self.0;
            (&b).known()
        }
        fn constant(&self, name: &str) -> Option<f64> {
            ["RED", "GREEN", "BLUE"]
                .iter()
                .position(|c| *c == name)
                .map(|i| i as f64)
        }
    }
    let b = Builder::<(), ()>::new();
    let colour = b.key::<i32>("colour").unwrap();
    let script = Script::compile("colour := BLUE; colour == 2", &mut Colours(&b)).unwrap();
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(
        script.run(&mut agent.board_mut(&tree)),
        Ok(ScriptValue::Bool(true))
    );
    assert_eq!(agent.board(&tree).read(colour), 2);
}

#[test]
fn a_condition_runs_read_only() {
    let b = Builder::<(), ()>::new();
    let hp = b.key::<i32>("hp").unwrap();
    let alive = Script::compile_condition("hp", &mut &b).unwrap();
    let writes = Script::compile_condition("hp := 3; true", &mut &b).unwrap();
    assert!(!alive.writes() && writes.writes());
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(alive.test(&agent.board(&tree)), Ok(false));
    agent.board_mut(&tree).write(hp, 7);
    assert_eq!(alive.test(&agent.board(&tree)), Ok(true));
    let fault = writes.test(&agent.board(&tree)).unwrap_err();
    assert_eq!(
        writes.explain(&fault),
        "column 1: a condition cannot assign keys"
    );
}

#[test]
fn a_script_on_another_trees_board_faults_instead_of_panicking() {
    let b = Builder::<(), ()>::new();
    b.key::<f64>("far").unwrap();
    let script = b.script("far := 1").unwrap();
    let empty = Builder::<(), ()>::new();
    let tree = empty.build(empty.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(
        script.run(&mut agent.board_mut(&tree)),
        Err(ScriptFault::OutsideBoard)
    );
}

#[test]
fn a_value_nobody_uses_is_left_out_only_where_its_reads_cannot_fault() {
    // Run for its writes (an `Eval` leaf), `hp > 10 && far != 3` only
    // makes the value: on its own tree's board it is not evaluated.
    let b = Builder::<(), ()>::new();
    b.key::<u64>("step").unwrap();
    b.key::<f64>("hp").unwrap();
    b.key::<u64>("far").unwrap();
    let script = b.script("hp := step * 2 + 1; hp > 10 && far != 3").unwrap();
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(script.run_for_effect(&mut agent.board_mut(&tree)), Ok(()));
    assert_eq!(agent.board(&tree).read(tree.key::<f64>("hp").unwrap()), 1.0);
    // On a board without `far`, reading it faults after `hp` is written,
    // as the stack machine does: the whole program runs there.
    let short = Builder::<(), ()>::new();
    let step = short.key::<u64>("step").unwrap();
    let hp = short.key::<f64>("hp").unwrap();
    let tree = short.build(short.always_success("s")).unwrap();
    let (mut eval, mut slow) = (Agent::new(&tree), Agent::new(&tree));
    eval.board_mut(&tree).write(step, 4);
    slow.board_mut(&tree).write(step, 4);
    let ran = script.run_for_effect(&mut eval.board_mut(&tree));
    let expected = program::run(&script.code(), Target::Write(&mut slow.board_mut(&tree)));
    assert_eq!(expected, Err(ScriptFault::OutsideBoard));
    assert_eq!(ran, Err(ScriptFault::OutsideBoard));
    assert_eq!(eval.board(&tree).read(hp), 9.0);
    assert_eq!(
        every_byte(&eval.board(&tree)),
        every_byte(&slow.board(&tree))
    );
}

#[test]
fn a_script_longer_than_the_bound_is_refused() {
    let long = "1".repeat(MAX_SCRIPT_BYTES + 1);
    assert_eq!(
        error(&long),
        "column 1: the script is 4097 bytes long; scripts hold at most 4096"
    );
}

#[test]
fn nesting_deeper_than_the_bound_is_refused() {
    let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    assert_eq!(
        error(&deep),
        "column 65: the expression is nested more than 64 deep"
    );
    let negations = format!("{}1", "-".repeat(3000));
    assert_eq!(
        error(&negations),
        "column 65: the expression is nested more than 64 deep"
    );
    let fine = format!("{}1{}", "(".repeat(60), ")".repeat(60));
    assert_eq!(value(&fine), num(1.0));
}

#[test]
fn a_chain_of_more_operators_than_the_bound_is_refused() {
    let chain = format!("0{}", "+1".repeat(300));
    assert_eq!(
        error(&chain),
        "column 514: the expression is more than 256 operators deep; split it into statements"
    );
    let fine = format!("0{}", "+1".repeat(256));
    assert_eq!(value(&fine), num(256.0));
    // As deep a tree of nodes as the bound allows, each node a call:
    // run on a thread with a small stack.
    let b = Builder::<(), ()>::new();
    let x = b.key::<f64>("x").unwrap();
    let deep = format!("x{}", "+x".repeat(256));
    let script = b.script(&deep).unwrap();
    assert!(script.straight.is_some());
    let tree = b.build(b.always_success("s")).unwrap();
    let mut agent = Agent::new(&tree);
    agent.board_mut(&tree).write(x, 2.0);
    let got = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn_scoped(s, || script.run(&mut agent.board_mut(&tree)))
            .unwrap()
            .join()
            .unwrap()
    });
    assert_eq!(got, Ok(num(257.0 * 2.0)));
}

#[test]
fn more_operations_than_the_bound_are_refused() {
    let long = "1;".repeat(600);
    assert_eq!(
        error(&long),
        "column 1025: the script compiles to more than 1024 operations"
    );
    let strings = format!("{}'z'{}", "'a' .. (".repeat(8), ")".repeat(8));
    assert_eq!(
        error(&strings),
        "column 65: the expression needs more than 8 strings at once"
    );
    let wide = format!("{}1{}", "1+1*(".repeat(20), ")".repeat(20));
    assert_eq!(
        error(&wide),
        "column 81: the expression needs more than 32 values at once"
    );
}

/// Compile `source` against keys of every kind a script meets, and run it
/// if it compiles: neither may panic.
fn compile_and_run(source: &str) {
    let b = Builder::<(), ()>::new();
    let _ = b.key::<u8>("small").unwrap();
    let _ = b.key::<i64>("big").unwrap();
    let _ = b.key::<Text>("name").unwrap();
    let _ = b.key::<bool>("flag").unwrap();
    let _ = b.key::<[f32; 2]>("goal").unwrap();
    if let Ok(script) = b.script(source) {
        let tree = b.build(b.always_success("s")).unwrap();
        let mut agent = Agent::new(&tree);
        let _ = script.run(&mut agent.board_mut(&tree));
        let _ = script.test(&agent.board(&tree));
    }
}

proptest::proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
        compile_and_run(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_never_panics(
        words in proptest::collection::vec(proptest::sample::select(vec![
            "small", "big", "name", "flag", "goal", "x", ":=", "=", "+=", "-=", "*=", "/=",
            "+", "-", "*", "/", "..", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!",
            "&", "|", "^", "~", "?", ":", "(", ")", ";", "1", "0.5", "300", "-1", "'a'",
            "\"bc\"", "true", "false", "1e308",
        ]), 0..60)
    ) {
        compile_and_run(&words.join(" "));
    }
}

#[test]
fn straight_line_code_and_the_stack_machine_agree_on_values_writes_and_faults() {
    // Numbers only without jumps: run as straight-line code. Each is run
    // both ways from the same boards; the values (or faults) and the
    // boards afterwards must be the same.
    let scripts = [
        "hp := step * 2 + 1; hp > 10 && step != 3",
        "small := step * 1000",
        "f := step / 3; f * 3 == step",
        "-step + 2 * 3 - (4 - step) / 2",
        "!(step > 2) || flag",
        "flag && step",
        "step & 6 | 1 ^ 3",
        "step := step + 0.5",
        "0.1 + 0.2 == 0.3",
        "x := step / 10 + 0.2; (x != 0.3) + 2 * (x == 0.3) + 4 * (0.3 != x)",
        "n := 7; n += step; n -= 1; n *= 2; n",
    ];
    for source in scripts {
        for start in [0i64, 1, 3, 7, 200, -5] {
            let b = Builder::<(), ()>::new();
            let step = b.key::<i64>("step").unwrap();
            let flag = b.key::<bool>("flag").unwrap();
            b.key::<i8>("small").unwrap();
            let script = b.script(source).unwrap();
            assert!(script.straight.is_some(), "{source} is straight-line");
            let tree = b.build(b.always_success("s")).unwrap();
            let (mut fast, mut slow) = (Agent::new(&tree), Agent::new(&tree));
            for agent in [&mut fast, &mut slow] {
                agent.board_mut(&tree).write(step, start);
                agent.board_mut(&tree).write(flag, start % 2 == 1);
            }
            let got = script.run(&mut fast.board_mut(&tree));
            let expected = program::run(&script.code(), Target::Write(&mut slow.board_mut(&tree)));
            assert_eq!(got, expected, "{source} with step {start}");
            assert_eq!(
                fast.board(&tree).read(step),
                slow.board(&tree).read(step),
                "{source} with step {start}"
            );
            let tested = script.test(&fast.board(&tree));
            let expected =
                program::run(&script.code(), Target::Read(&slow.board(&tree))).map(|v| v.is_true());
            assert_eq!(tested, expected, "{source} tested with step {start}");
            // Run for its writes alone, from the start again.
            let (mut eval, mut slow) = (Agent::new(&tree), Agent::new(&tree));
            for agent in [&mut eval, &mut slow] {
                agent.board_mut(&tree).write(step, start);
                agent.board_mut(&tree).write(flag, start % 2 == 1);
            }
            let ran = script.run_for_effect(&mut eval.board_mut(&tree));
            let expected = program::run(&script.code(), Target::Write(&mut slow.board_mut(&tree)));
            assert_eq!(
                ran,
                expected.map(|_| ()),
                "{source} run for its writes with step {start}"
            );
            let (eval, slow) = (
                every_byte(&eval.board(&tree)),
                every_byte(&slow.board(&tree)),
            );
            assert_eq!(eval, slow, "{source} run for its writes with step {start}");
        }
    }
    // What is not numbers without jumps keeps the stack machine.
    let b = Builder::<(), ()>::new();
    b.key::<i64>("step").unwrap();
    for source in ["step > 1 ? 2 : 3", "1 < step < 5", "'a' .. step"] {
        assert!(b.script(source).unwrap().straight.is_none(), "{source}");
    }
}

/// Every byte of `board` (every key's value, whatever its type).
fn every_byte(board: &Board) -> Vec<u8> {
    let len = (0..=4096).rev().find(|&n| board.raw(0, n).is_some());
    board.raw(0, len.unwrap_or(0)).unwrap_or_default().to_vec()
}

/// The keys the random scripts below read and write, one of each type a
/// straight-line program loads and stores.
const KEYS: [&str; 11] = [
    "i8k", "i16k", "i32k", "i64k", "u8k", "u16k", "u32k", "u64k", "f32k", "f64k", "flag",
];

/// Values the keys start from: edges of the integer types, fractions, a
/// negative zero, infinities and NaN (for the float keys).
const STARTS: [f64; 14] = [
    0.0,
    1.0,
    -1.0,
    3.0,
    0.5,
    -0.0,
    127.0,
    -128.0,
    255.0,
    65535.0,
    2147483647.0,
    9.3e18,
    f64::INFINITY,
    f64::NAN,
];

/// The constants of the random scripts: edges of the integer types,
/// fractions that do not add up exactly, a huge one.
const CONSTANTS: [&str; 16] = [
    "0",
    "1",
    "2",
    "3",
    "-3",
    "0.5",
    "300",
    "1e308",
    "0.1",
    "0.2",
    "0.3",
    "true",
    "false",
    "70000",
    "2147483648",
    "-129",
];

/// A straight-line expression of depth at most `depth` over [`KEYS`],
/// with the shapes the tree fuses into one node made often: a key times
/// a constant plus or minus one (`u8k * 2 + 1`), that assigned to a key
/// (`f64k = u8k * 2 + 1`), and a key assigned then compared with a
/// constant (`(f64k := …) > 10`).
fn expression(depth: u32) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let key = || proptest::sample::select(KEYS.to_vec());
    let constant = || proptest::sample::select(CONSTANTS.to_vec());
    let atom = prop_oneof![
        key().prop_map(str::to_string),
        constant().prop_map(str::to_string),
    ];
    atom.prop_recursive(depth, 24, 2, move |inner| {
        let ops = proptest::sample::select(vec![
            "+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^",
        ]);
        let assign = proptest::sample::select(vec![":=", "=", "+=", "-=", "*=", "/="]);
        let cmp = proptest::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]);
        let plus = proptest::sample::select(vec!["+", "-"]);
        prop_oneof![
            (inner.clone(), ops, inner.clone()).prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            (proptest::sample::select(vec!["-", "!"]), inner.clone())
                .prop_map(|(op, a)| format!("{op}({a})")),
            (key(), assign.clone(), inner.clone()).prop_map(|(k, op, a)| format!("({k} {op} {a})")),
            (key(), constant(), plus.clone(), constant())
                .prop_map(|(k, a, op, b)| format!("({k} * {a} {op} {b})")),
            (key(), key(), constant(), plus, constant())
                .prop_map(|(to, k, a, op, b)| format!("({to} = {k} * {a} {op} {b})")),
            (key(), assign, inner, cmp, constant())
                .prop_map(|(k, op, a, c, b)| format!("(({k} {op} {a}) {c} {b})")),
        ]
    })
}

/// Every key's value on `board`, in words (NaN and the sign of zero
/// included).
fn every_key(tree: &crate::Tree<(), ()>, board: &Board) -> String {
    let mut out = String::new();
    macro_rules! each {
        ($($name:literal: $t:ty),*) => {$(
            out += &format!("{:?} ", board.read(tree.key::<$t>($name).unwrap()));
        )*};
    }
    each!("i8k": i8, "i16k": i16, "i32k": i32, "i64k": i64, "u8k": u8, "u16k": u16,
        "u32k": u32, "u64k": u64, "f32k": f32, "f64k": f64, "flag": bool);
    out
}

/// A value or a fault in words, numbers to the bit (`-0.0`, `NaN`).
fn outcome<T: std::fmt::Debug>(script: &Script, result: &Result<T, ScriptFault>) -> String {
    match result {
        Ok(v) => format!("{v:?}"),
        Err(f) => format!("{f:?}: {}", script.explain(f)),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    #[test]
    fn straight_line_code_and_the_stack_machine_agree_on_random_scripts(
        statements in proptest::collection::vec(expression(4), 1..4),
        starts in proptest::collection::vec(proptest::sample::select(STARTS.to_vec()), KEYS.len()),
    ) {
        let source = statements.join("; ");
        let b = Builder::<(), ()>::new();
        let i8k = b.key::<i8>("i8k").unwrap();
        let i16k = b.key::<i16>("i16k").unwrap();
        let i32k = b.key::<i32>("i32k").unwrap();
        let i64k = b.key::<i64>("i64k").unwrap();
        let u8k = b.key::<u8>("u8k").unwrap();
        let u16k = b.key::<u16>("u16k").unwrap();
        let u32k = b.key::<u32>("u32k").unwrap();
        let u64k = b.key::<u64>("u64k").unwrap();
        let f32k = b.key::<f32>("f32k").unwrap();
        let f64k = b.key::<f64>("f64k").unwrap();
        let flag = b.key::<bool>("flag").unwrap();
        let Ok(script) = b.script(&source) else { return Ok(()) };
        proptest::prop_assume!(script.straight.is_some());
        let tree = b.build(b.always_success("s")).unwrap();
        let (mut fast, mut slow) = (Agent::new(&tree), Agent::new(&tree));
        let mut eval = Agent::new(&tree);
        for agent in [&mut fast, &mut slow, &mut eval] {
            let mut board = agent.board_mut(&tree);
            // Each start as the nearest value the key's type holds.
            let s = |n: usize| starts[n];
            board.write(i8k, s(0) as i8);
            board.write(i16k, s(1) as i16);
            board.write(i32k, s(2) as i32);
            board.write(i64k, s(3) as i64);
            board.write(u8k, s(4) as u8);
            board.write(u16k, s(5) as u16);
            board.write(u32k, s(6) as u32);
            board.write(u64k, s(7) as u64);
            board.write(f32k, s(8) as f32);
            board.write(f64k, s(9));
            board.write(flag, s(10) != 0.0);
        }
        let tested = script.test(&fast.board(&tree));
        let expected = program::run(&script.code(), Target::Read(&slow.board(&tree))).map(|v| v.is_true());
        proptest::prop_assert_eq!(outcome(&script, &tested), outcome(&script, &expected), "{} tested", source);
        let mut condition = fast.clone();
        let got = script.run(&mut fast.board_mut(&tree));
        let expected = program::run(&script.code(), Target::Write(&mut slow.board_mut(&tree)));
        proptest::prop_assert_eq!(outcome(&script, &got), outcome(&script, &expected), "{}", source);
        let held = script.run_condition(&mut condition.board_mut(&tree));
        proptest::prop_assert_eq!(outcome(&script, &held), outcome(&script, &expected.map(|v| v.is_true())), "{} as a condition", source);
        proptest::prop_assert_eq!(every_key(&tree, &condition.board(&tree)), every_key(&tree, &slow.board(&tree)), "{} as a condition", source);
        proptest::prop_assert_eq!(every_key(&tree, &fast.board(&tree)), every_key(&tree, &slow.board(&tree)), "{}", source);
        // Run for its writes alone (an `Eval` leaf): the same fault or
        // none, the same keys afterwards.
        let ran = script.run_for_effect(&mut eval.board_mut(&tree));
        proptest::prop_assert_eq!(outcome(&script, &ran), outcome(&script, &expected.map(|_| ())), "{} run for its writes", source);
        proptest::prop_assert_eq!(every_key(&tree, &eval.board(&tree)), every_key(&tree, &slow.board(&tree)), "{} run for its writes", source);
    }
}
