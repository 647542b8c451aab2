//! canopy's Groot2 publisher against BehaviorTree.CPP's own: the same XML
//! tree, ticked the same way on both (canopy here, BehaviorTree.CPP 4.8.2
//! through behaviortreepy in `conformance/peer.py`), and after every tick
//! an independent client (pyzmq) asks both publishers for the tree, the
//! statuses and the blackboards: node UIDs, tags and names, every status
//! byte (idle-after-success included) and every blackboard value must
//! agree, and `btview snapshot --uid` (a Groot2 client written by others)
//! must draw both the same. The `.btlog` canopy writes must hold
//! BehaviorTree.CPP's `FileLogger` transitions for the same run.
//!
//! Needs `pip install behaviortreepy==0.1.4 pyzmq btview==0.2.0`; without
//! them the test is skipped with the reason, unless `CI` or
//! `CANOPY_REQUIRE_BTCPP` is set, where it fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Tree};
use canopy_data::Registry;
use canopy_groot2::{BtLog, BtLogFile, GrootTree, Monitor, Options, Publisher};
use serde_json::Value;

/// Ticks each tree runs for.
const TICKS: u32 = 8;

/// Trees over BehaviorTree.CPP's standard nodes, with scripted leaves
/// (`canopy_Script`: `statuses` played back per update, as both sides do).
const TREES: &[(&str, &str)] = &[
    (
        "controls_subtree_and_scripts",
        r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="top">
      <Script code="count := 3; msg := 'hi'; ratio := 1.5; ok := true"/>
      <Fallback>
        <canopy_Script name="F0" statuses="Failure"/>
        <SubTree ID="Sub" _autoremap="true"/>
      </Fallback>
      <ReactiveSequence>
        <canopy_Script name="C1" statuses="Success"/>
        <canopy_Script name="W1" statuses="Running;Running;Success"/>
      </ReactiveSequence>
      <Inverter><canopy_Script name="F1" statuses="Failure"/></Inverter>
      <SequenceWithMemory>
        <canopy_Script name="S2" statuses="Success"/>
        <canopy_Script name="W2" statuses="Running;Failure"/>
      </SequenceWithMemory>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Sub">
    <Sequence>
      <Script code="total := count + 1"/>
      <canopy_Script name="done" statuses="Success"/>
    </Sequence>
  </BehaviorTree>
</root>"#,
    ),
    (
        "decorators_and_parallel",
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <ReactiveFallback>
      <canopy_Script name="C0" statuses="Failure;Failure;Failure;Failure;Failure;Success" clock="tick"/>
      <Parallel success_count="2" failure_count="2">
        <Repeat num_cycles="3"><canopy_Script name="R" statuses="Success"/></Repeat>
        <RetryUntilSuccessful num_attempts="4"><canopy_Script name="T" statuses="Failure;Failure;Success" clock="tick"/></RetryUntilSuccessful>
        <ForceFailure><canopy_Script name="X" statuses="Running;Success"/></ForceFailure>
      </Parallel>
      <IfThenElse>
        <canopy_Script name="IF" statuses="Success"/>
        <KeepRunningUntilFailure><canopy_Script name="K" statuses="Success;Success;Failure"/></KeepRunningUntilFailure>
        <canopy_Script name="ELSE" statuses="Success"/>
      </IfThenElse>
    </ReactiveFallback>
  </BehaviorTree>
</root>"#,
    ),
    (
        "shared_subtrees_and_conditions",
        r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="level := 2"/>
      <SubTree ID="Step"/>
      <canopy_Script name="MID" statuses="Running;Success" _onSuccess="level := level + 1"/>
      <SubTree ID="Step"/>
      <Fallback>
        <canopy_Script name="G" statuses="Success" _failureIf="level &gt; 5"/>
        <canopy_Script name="H" statuses="Running;Success"/>
      </Fallback>
      <WhileDoElse>
        <canopy_Script name="WC" statuses="Success;Success;Failure" clock="tick"/>
        <canopy_Script name="DO" statuses="Running"/>
        <canopy_Script name="OTHER" statuses="Success"/>
      </WhileDoElse>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Step">
    <Sequence>
      <canopy_Script name="S_A" statuses="Success"/>
      <ForceSuccess><canopy_Script name="S_B" statuses="Running;Failure"/></ForceSuccess>
    </Sequence>
  </BehaviorTree>
</root>"#,
    ),
];

fn required() -> bool {
    ["CI", "CANOPY_REQUIRE_BTCPP"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Whether the peer can run here; `Err` says why not.
fn peer_available() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import behaviortreepy, zmq, msgpack, btview"])
        .output()
        .map_err(|e| format!("python3 cannot be run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "python3 lacks a package (pip install behaviortreepy==0.1.4 pyzmq btview==0.2.0): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    fn start() -> Peer {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/peer.py");
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Peer {
            child,
            stdin,
            stdout,
        }
    }

    fn say(&mut self, line: &str) -> String {
        writeln!(self.stdin, "{line}").expect("the peer reads");
        self.stdin.flush().expect("the peer reads");
        let mut answer = String::new();
        self.stdout
            .read_line(&mut answer)
            .expect("the peer answers");
        assert!(!answer.is_empty(), "the peer stopped after {line:?}");
        if answer.starts_with('{') {
            let value: Value = serde_json::from_str(&answer).expect("JSON");
            if let Some(error) = value.get("error") {
                panic!("the peer failed on {line:?}: {error}");
            }
        }
        answer
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn load(xml: &str) -> Tree<(), ()> {
    load_str(
        &Registry::new(),
        xml,
        "tree.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("canopy loads the tree")
}

fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-groot2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    dir
}

#[test]
fn canopys_publisher_answers_as_behaviortree_cpps_does() {
    if let Err(why) = peer_available() {
        assert!(
            !required(),
            "BehaviorTree.CPP's peer is required here: {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let dir = dir();
    let mut peer = Peer::start();
    let mut differences = Vec::new();
    for (name, xml) in TREES {
        let tree = load(xml);
        let monitor = Monitor::new(GrootTree::from_xml(xml).unwrap(), &tree);
        assert_eq!(monitor.mismatches(), Vec::<String>::new(), "{name}");
        let options = Options {
            port: 0,
            ..Options::default()
        };
        let publisher = Publisher::start(monitor, options).expect("the publisher starts");
        let file = dir.join(format!("{name}.xml"));
        std::fs::write(&file, xml).unwrap();
        let ready = peer.say(&format!("tree {} {}", file.display(), publisher.port()));
        assert!(ready.starts_with("ready"), "{ready}");
        let mut agent = Agent::new(&tree);
        for n in 1..=TICKS {
            publisher
                .monitor()
                .probe()
                .tick(&mut agent, &tree, &mut (), &());
            let draw = if n == 1 || n == TICKS { " btview" } else { "" };
            let answer: Value =
                serde_json::from_str(&peer.say(&format!("tick {n}{draw}"))).unwrap();
            for d in answer["differences"].as_array().unwrap() {
                differences.push(format!("{name}, tick {n}: {}", d.as_str().unwrap()));
            }
        }
        assert_eq!(peer.say("done").trim(), "closed");
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        differences.is_empty(),
        "{} differences from BehaviorTree.CPP's publisher:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn canopys_btlog_holds_behaviortree_cpps_transitions() {
    if let Err(why) = peer_available() {
        assert!(
            !required(),
            "BehaviorTree.CPP's peer is required here: {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let dir = dir().join("btlog");
    std::fs::create_dir_all(&dir).unwrap();
    let mut peer = Peer::start();
    for (name, xml) in TREES {
        let tree = load(xml);
        let groot = GrootTree::from_xml(xml).unwrap();
        let path = dir.join(format!("{name}.btlog"));
        let monitor = Monitor::new(groot.clone(), &tree);
        monitor.set_log(Some(BtLog::create(&path, &groot, 100).unwrap()));
        let mut agent = Agent::new(&tree);
        for _ in 0..TICKS {
            monitor.probe().tick(&mut agent, &tree, &mut (), &());
        }
        monitor.set_log(None).unwrap().finish().unwrap();
        let ours = BtLogFile::parse(&std::fs::read(&path).unwrap()).unwrap();
        let file = dir.join(format!("{name}.xml"));
        std::fs::write(&file, xml).unwrap();
        let theirs: Value =
            serde_json::from_str(&peer.say(&format!("btlog {} {TICKS}", file.display()))).unwrap();
        assert_eq!(theirs["magic"], "BTCPP4-FileLogger2", "{name}");
        assert_eq!(theirs["version"], u64::from(ours.version), "{name}");
        assert_eq!(theirs["trailing"], 0, "{name}");
        // The same nodes under the same UIDs.
        let our_nodes: Vec<(u16, String, String)> = groot
            .nodes()
            .iter()
            .map(|n| {
                let tag = n.tag.clone();
                (n.uid, tag, n.name.clone())
            })
            .collect();
        for (uid, tag, node_name) in &our_nodes {
            let theirs_node = &theirs["nodes"][uid.to_string()];
            let their_tag = theirs_node[0].as_str().unwrap_or_default();
            assert_eq!(
                (their_tag, theirs_node[1].as_str().unwrap_or_default()),
                (tag.as_str(), node_name.as_str()),
                "{name}: uid {uid}"
            );
        }
        // The same transitions, in the same order; stamped in µs from the
        // log's start, never going back.
        let their_transitions: Vec<(u16, u8)> = theirs["transitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t[1].as_u64().unwrap() as u16, t[2].as_u64().unwrap() as u8))
            .collect();
        let our_transitions: Vec<(u16, u8)> =
            ours.transitions.iter().map(|&(_, u, s)| (u, s)).collect();
        assert_eq!(our_transitions, their_transitions, "{name}");
        let times: Vec<u64> = ours.transitions.iter().map(|t| t.0).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{name}: {times:?}");
        let their_times: Vec<u64> = theirs["transitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t[0].as_u64().unwrap())
            .collect();
        assert!(
            their_times.windows(2).all(|w| w[0] <= w[1]),
            "{name}: {their_times:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
