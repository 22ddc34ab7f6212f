//! The importer on real tool output (tests/data/2sw4hca: ibsim's example net file
//! `net.2sw2path4hca` routed by OpenSM 3.3.23's minhop, collected by scripts/ib-local),
//! and each bad input of issue 40 made from it by one edit.

use liquid_fabric::hosts::{self, Selection};
use liquid_fabric::import::{self, Imported, Options};
use liquid_fabric::{lft, topology, FabricError};

const TOPO: &str = include_str!("data/2sw4hca/topology.txt");
const TOPO_P: &str = include_str!("data/2sw4hca/topology-p.txt");
const LFTS: &str = include_str!("data/2sw4hca/opensm-lfts.dump");
const FTS: &str = include_str!("data/2sw4hca/dump_fts.txt");
const TRACERT: &str = include_str!("data/2sw4hca/tracert.txt");

fn run_with(
    topo: &str,
    lfts: &str,
    selection: Selection,
    allow: bool,
) -> Result<Imported, FabricError> {
    let t = topology::parse("topology.txt", topo)?;
    let l = lft::parse("lfts", lfts)?;
    import::import(
        &t,
        &l,
        &Options {
            name: "f".into(),
            selection,
            allow_unrouted: allow,
        },
    )
}

fn lfts_of(text: &str) -> lft::Lfts {
    lft::parse("lfts", text).expect("reads")
}

fn run(topo: &str, lfts: &str) -> Result<Imported, FabricError> {
    run_with(topo, lfts, Selection::All, false)
}

fn err(r: Result<Imported, FabricError>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// The model without comments and description (which name the input files).
fn body(m: &Imported) -> String {
    m.to_yaml()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("description:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn reads_the_real_files_and_every_route() {
    let m = run(TOPO, LFTS).expect("imports");
    assert_eq!(m.summary.switches, 2);
    assert_eq!(m.summary.adapters, 4);
    assert_eq!(m.network.hosts, ["Hca1", "Hca2", "Hca3", "Hca4"]);
    assert_eq!(
        m.network.switches,
        ["S-0000000000200000", "S-0000000000200001"]
    );
    // 2 switches with 4 cables each (2 to hosts, 2 between them) = 6 cables, 12 links.
    assert_eq!(m.network.links.len(), 12);
    assert_eq!(m.summary.routes, 12);
    let r = m
        .network
        .routes
        .iter()
        .find(|r| r.from == "Hca1" && r.to == "Hca4")
        .expect("routed");
    // OpenSM's table: Switch1 sends LID 6 (Hca4) to port 5, Switch2 to port 2.
    assert_eq!(
        r.path,
        ["Hca1/1", "S-0000000000200000/5", "S-0000000000200001/2"]
    );
    // The model reads back and expands to the all-to-all.
    let t = liquid_model::yaml::parse_model("m.yaml", &m.to_yaml()).expect("a valid model");
    assert_eq!(t.len(), 12);
    // The header lists GUIDs and descriptions.
    assert!(m
        .header
        .contains("Hca4  0x0000000000100009  port 1  lid 6  \"Hca4\""));
}

#[test]
fn every_form_gives_the_same_model() {
    let a = run(TOPO, LFTS).expect("default form, opensm dump");
    let b = run(TOPO, FTS).expect("default form, dump_fts");
    let c = run(TOPO_P, LFTS).expect("ports form, opensm dump");
    let d = run(TOPO_P, FTS).expect("ports form, dump_fts");
    assert_eq!(body(&a), body(&b));
    assert_eq!(body(&a), body(&c));
    assert_eq!(body(&a), body(&d));
}

#[test]
fn agrees_with_ibtracert() {
    let t = topology::parse("topology.txt", TOPO).expect("parses");
    let m = run(TOPO, LFTS).expect("imports");
    let c = import::check_tracert(&m, &t, &lfts_of(LFTS), "tracert.txt", TRACERT).expect("reads");
    assert_eq!(c.compared, 12);
    assert!(c.disagreements.is_empty(), "{:?}", c.disagreements);
    // A trace that differs is found: Switch1 sends LID 4 by port 5 instead of 3.
    let edited = TRACERT.replacen(
        "[3] -> switch port {0x0000000000200001}[3] lid 3-3",
        "[5] -> switch port {0x0000000000200001}[5] lid 3-3",
        1,
    );
    assert_ne!(edited, TRACERT);
    let c = import::check_tracert(&m, &t, &lfts_of(LFTS), "tracert.txt", &edited).expect("reads");
    assert_eq!(c.disagreements.len(), 1, "{:?}", c.disagreements);
    assert!(
        c.disagreements[0].contains("Hca1 -> Hca2"),
        "{}",
        c.disagreements[0]
    );
    // On this fully routed fabric, a trace that found no route is a disagreement.
    let c = import::check_tracert(
        &m,
        &t,
        &lfts_of(LFTS),
        "tracert.txt",
        "# ibtracert 2 4 failed\n",
    )
    .expect("reads");
    assert_eq!(c.disagreements.len(), 1, "{:?}", c.disagreements);
    assert!(
        c.disagreements[0].contains("tracert.txt:1: ibtracert found no route from Hca1 to Hca2"),
        "{}",
        c.disagreements[0]
    );
}

/// The traces of the whole fabric, collected once, serve a job's import of a few hosts:
/// the traces from or to the hosts left out are counted, not refused (they were, as
/// "not a host of the model").
#[test]
fn traces_outside_the_selected_hosts_are_counted_not_refused() {
    let t = topology::parse("topology.txt", TOPO).expect("parses");
    let selection = hosts::hostlist("--hosts", "Hca[1-2]").expect("a host list");
    let m = run_with(TOPO, LFTS, selection, false).expect("imports");
    let c = import::check_tracert(&m, &t, &lfts_of(LFTS), "tracert.txt", TRACERT).expect("reads");
    assert_eq!((c.compared, c.outside), (2, 10));
    assert!(c.disagreements.is_empty(), "{:?}", c.disagreements);
}

/// A trace from a host to itself, and traces from or to a switch's LID (a loop over every
/// LID pair makes them), are counted apart and not checked: the first was a
/// disagreement (exit 1), the others refused the whole check (exit 2).
#[test]
fn self_and_switch_traces_are_counted_not_checked() {
    let t = topology::parse("topology.txt", TOPO).expect("parses");
    let m = run(TOPO, LFTS).expect("imports");
    let own = "From ca {0x0000000000100000} portnum 1 lid 2-2 \"Hca1\"\n\
               To ca {0x0000000000100000} portnum 1 lid 2-2 \"Hca1\"\n";
    let to_switch = "From ca {0x0000000000100000} portnum 1 lid 2-2 \"Hca1\"\n\
                     [1] -> switch port {0x0000000000200000}[1] lid 1-1 \"Switch1\"\n\
                     To switch {0x0000000000200000} portnum 0 lid 1-1 \"Switch1\"\n";
    let from_switch = "From switch {0x0000000000200000} portnum 0 lid 1-1 \"Switch1\"\n\
                       [1] -> ca port {0x0000000000100001}[1] lid 2-2 \"Hca1\"\n\
                       To ca {0x0000000000100000} portnum 1 lid 2-2 \"Hca1\"\n";
    let text = format!("{TRACERT}{own}{to_switch}{from_switch}# ibtracert 2 1 failed\n");
    let c = import::check_tracert(&m, &t, &lfts_of(LFTS), "tracert.txt", &text).expect("reads");
    assert_eq!((c.compared, c.self_traces, c.switch), (12, 1, 3));
    assert!(c.disagreements.is_empty(), "{:?}", c.disagreements);
    // A LID that is nothing of the topology is still refused.
    let e = import::check_tracert(
        &m,
        &t,
        &lfts_of(LFTS),
        "tracert.txt",
        "# ibtracert 2 99 failed\n",
    )
    .expect_err("LID 99");
    assert!(
        e.to_string().contains("LID 99 is not in topology.txt"),
        "{e}"
    );
}

#[test]
fn hosts_by_hostlist_and_hostfile() {
    let sel = hosts::hostlist("--hosts", "Hca[1-2],Hca4").expect("a hostlist");
    let m = run_with(TOPO, LFTS, sel, false).expect("imports");
    assert_eq!(m.summary.hosts, 3);
    assert_eq!(m.summary.routes, 6);
    let sel = hosts::hostfile("hosts", "# a host file\nHca3 slots=2\n\nHca1\n").expect("reads");
    let m = run_with(TOPO, LFTS, sel, false).expect("imports");
    match &m.pattern {
        liquid_model::network::Pattern::AllToAll { senders, .. } => {
            assert_eq!(senders, &["Hca3", "Hca1"])
        }
        p => panic!("{p:?}"),
    }
    let e = hosts::hostfile("hosts", "Hca1\nHca2\nHca1\n").expect_err("twice");
    assert_eq!(
        e.to_string(),
        "hosts:3: host \"Hca1\" is named twice (first at line 1)"
    );
    let e = hosts::hostlist("--hosts", "Hca[1-2],Hca1").expect_err("twice");
    assert_eq!(
        e.to_string(),
        "--hosts: host \"Hca1\" is named twice in \"Hca[1-2],Hca1\""
    );
    let e = hosts::hostlist("--hosts", "n[001-003,002]").expect_err("twice");
    assert!(
        e.to_string().contains("host \"n002\" is named twice"),
        "{e}"
    );
    let e = hosts::hostlist("--hosts", "r[1-2]-n[01-02],r2-n01").expect_err("twice");
    assert!(
        e.to_string().contains("host \"r2-n01\" is named twice"),
        "{e}"
    );
    // Distinct hosts in several ranges and brackets are fine.
    let sel = hosts::hostlist("--hosts", "r[1-2]-n[01-02,04],r3-n01").expect("distinct");
    assert!(matches!(&sel, hosts::Selection::Named { names, .. } if names.len() == 7));
    // Whitespace outside brackets separates hosts, as in Slurm (one name a line is what
    // `scontrol show hostnames` prints); inside brackets it is ignored.
    let names = |expr: &str| match hosts::hostlist("--hosts", expr).expect("a hostlist") {
        hosts::Selection::Named { names, .. } => names,
        s => panic!("{s:?}"),
    };
    assert_eq!(names("n0000 n0001"), ["n0000", "n0001"]);
    assert_eq!(names("n0000\nn0001\n"), ["n0000", "n0001"]);
    assert_eq!(
        names(" n0000 \t n[0002-0003] ,n0005,  n0006 "),
        ["n0000", "n0002", "n0003", "n0005", "n0006"]
    );
    assert_eq!(names("n[0000 - 0002]"), ["n0000", "n0001", "n0002"]);
    let e = hosts::hostlist("--hosts", "Hca1 Hca2\nHca1").expect_err("twice");
    assert_eq!(
        e.to_string(),
        "--hosts: host \"Hca1\" is named twice in \"Hca1 Hca2\\nHca1\""
    );
    let e = hosts::hostlist("--hosts", "n[1-").expect_err("malformed");
    assert!(
        e.to_string()
            .starts_with("--hosts: \"n[1-\" is not a Slurm hostlist"),
        "{e}"
    );
}

// ---- Bad input: each error names the file, the line, the switch and the LID ----

#[test]
fn a_hostlist_naming_a_host_the_fabric_lacks() {
    let sel = hosts::hostlist("--hosts", "Hca[1-5]").expect("a hostlist");
    let e = err(run_with(TOPO, LFTS, sel, false));
    assert!(e.starts_with("--hosts: host \"Hca5\" is not in the fabric topology.txt (4 hosts: Hca1, Hca2, Hca3, Hca4)"), "{e}");
    let sel = hosts::hostfile("hosts", "Hca1\nnope\n").expect("reads");
    let e = err(run_with(TOPO, LFTS, sel, false));
    assert!(
        e.starts_with("hosts:2: host \"nope\" is not in the fabric"),
        "{e}"
    );
}

#[test]
fn a_destination_lid_without_an_entry() {
    // Switch1 (LID 1) has no entry for LID 6 (Hca4).
    let lfts = LFTS.replacen(
        "0x0006 005 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n",
        "",
        1,
    );
    assert_ne!(lfts, LFTS);
    // The footer names the range (0-6), not a count: still consistent.
    let e = err(run(TOPO, &lfts));
    assert!(
        e.starts_with("lfts:1: switch S-0000000000200000 (\"Switch1\") has no entry for LID 6 (host Hca4), which the route Hca1 -> Hca4 needs: the pair is unrouted."),
        "{e}"
    );
    // Allowed: the other pairs are imported, these listed, none dropped silently.
    let m = run_with(TOPO, &lfts, Selection::All, true).expect("imports");
    let pairs: Vec<(&str, &str)> = m
        .summary
        .unrouted
        .iter()
        .map(|u| (u.from.as_str(), u.to.as_str()))
        .collect();
    assert_eq!(pairs, [("Hca1", "Hca4"), ("Hca3", "Hca4")]);
    assert_eq!(m.summary.routes, 10);
    assert!(m
        .header
        .contains("#   Hca1 -> Hca4: S-0000000000200000 has no entry for LID 6"));
    assert!(m
        .notes
        .iter()
        .any(|n| n.starts_with("2 of 12 host pairs are unrouted")));
    let t = liquid_model::yaml::parse_model("m.yaml", &m.to_yaml()).expect("valid");
    assert_eq!(t.len(), 10);
    // ibtracert finding no route (scripts/ib-local's record of it) agrees with an
    // unrouted pair; for a routed pair of this partly unrouted fabric it is not checked
    // (ibtracert reaches switches by LID routes, which may be missing).
    let topo = topology::parse("topology.txt", TOPO).expect("parses");
    let traces = "# ibtracert 2 6 failed\n# ibtracert 2 4 failed\n";
    let c =
        import::check_tracert(&m, &topo, &lfts_of(&lfts), "tracert.txt", traces).expect("reads");
    assert_eq!(
        (c.compared, c.failed_unrouted, c.failed_unchecked),
        (1, 1, 1)
    );
    assert!(c.disagreements.is_empty(), "{:?}", c.disagreements);
}

#[test]
fn a_routing_loop() {
    // Switch2 sends LID 4 (Hca2, on its own port 1) back to Switch1, which sends it back.
    let lfts = LFTS.replacen("0x0004 001 # Channel", "0x0004 003 # Channel", 1);
    assert_ne!(lfts, LFTS);
    let e = err(run(TOPO, &lfts));
    assert!(e.starts_with("lfts:"), "{e}");
    assert!(e.contains("routing loop for LID 4"), "{e}");
    assert!(
        e.contains("S-0000000000200000 -> S-0000000000200001 -> S-0000000000200000"),
        "{e}"
    );
}

#[test]
fn an_output_port_with_nothing_attached() {
    let lfts = LFTS.replacen("0x0006 005 # Channel", "0x0006 007 # Channel", 1);
    let e = err(run(TOPO, &lfts));
    assert_eq!(
        e,
        "lfts:7: switch S-0000000000200000 (\"Switch1\") sends LID 6 (host Hca4) to port 7, which has nothing attached in topology.txt"
    );
}

#[test]
fn a_guid_in_the_tables_that_the_topology_lacks() {
    let lfts = LFTS.replacen("guid 0x0000000000200000", "guid 0x0000000000200099", 1);
    let e = err(run(TOPO, &lfts));
    assert!(
        e.starts_with("lfts:1: switch 0x0000000000200099 (\"Switch1\") has a forwarding table here, but topology.txt has no switch with that GUID"),
        "{e}"
    );
}

#[test]
fn tables_and_topology_from_different_times() {
    // LID 6 names another port GUID than the topology gives it.
    let lfts = LFTS.replacen(
        "0x0006 005 # Channel Adapter portguid 0x000000000010000a",
        "0x0006 005 # Channel Adapter portguid 0x000000000010000b",
        1,
    );
    let e = err(run(TOPO, &lfts));
    assert!(e.starts_with("lfts:7: switch S-0000000000200000: LID 6 belongs to port GUID 0x000000000010000b here but to 0x000000000010000a"), "{e}");
}

#[test]
fn lmc_above_zero_follows_base_lids() {
    // Hca4 with LMC 1 has LIDs 6 and 7; the tables route LID 6 (the base) as before.
    let topo = TOPO.replacen("# lid 6 lmc 0 \"Switch2\"", "# lid 6 lmc 1 \"Switch2\"", 1);
    assert_ne!(topo, TOPO);
    let m = run(&topo, LFTS).expect("imports");
    assert_eq!(m.summary.routes, 12);
    assert!(
        m.notes
            .iter()
            .any(|n| n.contains("LMC 1") && n.contains("base LID")),
        "{:?}",
        m.notes
    );
    assert!(m.header.contains("# Note: LMC 1"));
    // A LID of the range taken by another port is refused.
    let topo = TOPO.replacen("# lid 4 lmc 0 \"Switch2\"", "# lid 4 lmc 1 \"Switch2\"", 1);
    let e = topology::parse("topology.txt", &topo).expect_err("LID 5 twice");
    assert!(
        e.to_string().contains("LID 5 is also assigned at line"),
        "{e}"
    );
}

#[test]
fn a_lid_that_is_not_a_unicast_lid() {
    // Hca4's port (line 31): out of range, was "lacks its LID (...truncated?)".
    let topo = TOPO.replacen("# lid 6 lmc 0", "# lid 99999999999 lmc 0", 1);
    assert_ne!(topo, TOPO);
    let e = topology::parse("topology.txt", &topo).expect_err("out of range");
    assert_eq!(
        e.to_string(),
        "topology.txt:31: LID 99999999999 is not a unicast LID (1-49151)"
    );
    let topo = TOPO.replacen("# lid 6 lmc 0", "# lid 49152 lmc 0", 1);
    let e = topology::parse("topology.txt", &topo).expect_err("multicast");
    assert_eq!(
        e.to_string(),
        "topology.txt:31: LID 49152 is not a unicast LID (1-49151)"
    );
    // LID 0 on a selected adapter's port: refused at its line by the import (was a
    // table/LID mismatch later); the topology itself reads (see
    // a_port_with_lid_0_left_out_of_the_selection).
    let topo = TOPO.replacen("# lid 6 lmc 0", "# lid 0 lmc 0", 1);
    let e = err(run(&topo, LFTS));
    assert!(
        e.starts_with(
            "topology.txt:31: the adapter port has LID 0, which is never a unicast LID (1-49151)"
        ),
        "{e}"
    );
    // A switch's LID out of range (line 10).
    let topo = TOPO.replacen("base port 0 lid 3 lmc 0", "base port 0 lid 70000 lmc 0", 1);
    assert_ne!(topo, TOPO);
    let e = topology::parse("topology.txt", &topo).expect_err("switch LID");
    assert_eq!(
        e.to_string(),
        "topology.txt:10: LID 70000 is not a unicast LID (1-49151)"
    );
    // The ports form: Hca4's line (line 1), LID 0 and out of range.
    let topo = TOPO_P.replacen("CA     6  1", "CA     0  1", 1);
    assert_ne!(topo, TOPO_P);
    let t = topology::parse("topology-p.txt", &topo).expect("reads");
    let l = lft::parse("lfts", LFTS).expect("reads");
    let opts = Options {
        name: "f".into(),
        selection: Selection::All,
        allow_unrouted: false,
    };
    let e = import::import(&t, &l, &opts)
        .expect_err("LID 0")
        .to_string();
    assert!(
        e.starts_with("topology-p.txt:1: the adapter port has LID 0"),
        "{e}"
    );
    let topo = TOPO_P.replacen("CA     6  1", "CA     99999999999  1", 1);
    let e = topology::parse("topology-p.txt", &topo).expect_err("out of range");
    assert_eq!(
        e.to_string(),
        "topology-p.txt:1: LID 99999999999 is not a unicast LID (1-49151)"
    );
}

#[test]
fn a_truncated_topology() {
    // Cut inside the last record: the cable Switch1 port 1 - Hca1 has one end only.
    let cut = &TOPO[..TOPO.rfind("[1](100001)").expect("the last port line")];
    let e = topology::parse("topology.txt", cut).expect_err("truncated");
    assert!(e.to_string().contains("a truncated or edited file?"), "{e}");
    assert!(e.to_string().starts_with("topology.txt:"), "{e}");
    // Cut before the last record: Hca1 is never described.
    let cut = &TOPO[..TOPO.rfind("vendid").expect("the last record")];
    let e = topology::parse("topology.txt", cut).expect_err("truncated");
    assert!(
        e.to_string()
            .contains("which the file never describes: a truncated or incomplete file?"),
        "{e}"
    );
    // The ports form, cut.
    let cut = &TOPO_P[..TOPO_P.len() / 2];
    let e = topology::parse("topology-p.txt", cut).expect_err("truncated");
    assert!(e.to_string().contains("truncated"), "{e}");
}

#[test]
fn truncated_tables() {
    let cut = &LFTS[..LFTS.rfind("0x0005").expect("an entry")];
    let e = lft::parse("lfts", cut).expect_err("truncated");
    assert!(
        e.to_string()
            .contains("the file ends inside the table of switch 0x0000000000200001 (line 9)"),
        "{e}"
    );
    let cut = &FTS[..FTS.find("6 valid lids dumped").expect("footer")];
    let cut = format!(
        "{cut}{}",
        &FTS[FTS
            .find("Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0 guid")
            .expect("second")..]
    );
    let e = lft::parse("fts", &cut).expect_err("truncated");
    assert!(
        e.to_string()
            .contains("ends without its \"lids dumped\" line"),
        "{e}"
    );
    // An entry removed from dump_fts: its count no longer matches.
    let edited = FTS.replacen(
        "0x0006 002 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n",
        "",
        1,
    );
    let e = lft::parse("fts", &edited).expect_err("count");
    assert!(
        e.to_string().contains("says 6 lids dumped but lists 5"),
        "{e}"
    );
    let e = lft::parse("fts", "").expect_err("empty");
    assert_eq!(
        e.to_string(),
        "fts: no forwarding tables: not opensm-lfts.dump, dump_fts or ibroute output"
    );
}

#[test]
fn a_host_named_twice() {
    let topo = TOPO.replacen("# \"Hca2\"\n", "# \"Hca1 HCA-2\"\n", 1);
    assert_ne!(topo, TOPO);
    let e = err(run(&topo, LFTS));
    assert!(e.starts_with("topology.txt:"), "{e}");
    assert!(e.contains("host \"Hca1\" is named twice"), "{e}");
}

#[test]
fn dump_fts_missing_its_top_lid_says_why() {
    // dump_fts never reads the block of a top LID that is a multiple of 64: Hca4 as LID
    // 64, the switches' tables end at 0x40 without it.
    let topo = TOPO
        .replace("\"Hca4\" lid 6 4xSDR", "\"Hca4\" lid 64 4xSDR")
        .replace("# lid 6 lmc 0", "# lid 64 lmc 0");
    let fts = FTS
        .replace("[0x0-0x6]", "[0x0-0x40]")
        .replace(
            "0x0006 002 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n",
            "",
        )
        .replace(
            "0x0006 005 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n",
            "",
        )
        .replace("6 valid lids dumped", "5 valid lids dumped");
    let e = err(run(&topo, &fts));
    assert!(e.contains("has no entry for LID 64"), "{e}");
    assert!(
        e.contains("dump_fts and ibroute never read the table block"),
        "{e}"
    );
    assert!(
        e.contains("Collect OpenSM's opensm-lfts.dump instead"),
        "{e}"
    );
}

#[test]
fn not_tool_output() {
    let e = topology::parse("t", "hello world\n").expect_err("not ibnetdiscover");
    assert_eq!(
        e.to_string(),
        "t:1: not a line of ibnetdiscover output: \"hello world\""
    );
    let e = lft::parse("l", "0x0001 001 # x\n").expect_err("no header");
    assert!(
        e.to_string()
            .starts_with("l:1: not a forwarding-table line"),
        "{e}"
    );
}

/// Real output (tests/data/top-lid-64: two-clusters:30,32, 62 hosts and 2 switches, so
/// LIDs 1-64, routed by OpenSM's minhop): dump_fts's headers say [0x0-0x40] but list
/// LIDs 1-63 only; OpenSM's own dump has LID 64.
#[test]
fn dump_fts_really_misses_a_top_lid_of_64() {
    let topo = include_str!("data/top-lid-64/topology.txt");
    let fts = include_str!("data/top-lid-64/dump_fts.txt");
    let osm = include_str!("data/top-lid-64/opensm-lfts.dump");
    assert!(fts.contains("Unicast lids [0x0-0x40]"));
    assert!(!fts.contains("\n0x0040 "));
    assert!(osm.contains("\n0x0040 "));
    let e = err(run(topo, fts));
    assert!(e.contains("has no entry for LID 64"), "{e}");
    assert!(
        e.contains("dump_fts and ibroute never read the table block"),
        "{e}"
    );
    let m = run(topo, osm).expect("OpenSM's dump has every LID");
    assert_eq!(m.summary.routes, 62 * 61);
}

/// Real output with LMC 2 (tests/data/lmc2: fat-tree:4,2 through OpenSM with `-l 2`;
/// ftree declines LMC > 0 and OpenSM fell back to minhop): every port has 4 LIDs. Every
/// form gives the same model, routes follow base LIDs, the note says so, and ibtracert
/// (between base LIDs) agrees.
#[test]
fn lmc_2_from_a_real_opensm() {
    let topo = include_str!("data/lmc2/topology.txt");
    let topo_p = include_str!("data/lmc2/topology-p.txt");
    let osm = include_str!("data/lmc2/opensm-lfts.dump");
    let fts = include_str!("data/lmc2/dump_fts.txt");
    assert!(topo.contains(" lmc 2 "));
    let a = run(topo, osm).expect("default form");
    assert!(
        a.notes
            .iter()
            .any(|n| n.starts_with("LMC 2 in topology.txt")),
        "{:?}",
        a.notes
    );
    for (t, l) in [(topo, fts), (topo_p, osm), (topo_p, fts)] {
        let b = run(t, l).expect("imports");
        assert_eq!(body(&a), body(&b));
    }
    let b = run(topo_p, osm).expect("ports form");
    assert!(
        b.notes.iter().any(|n| n.contains("LMC > 0")),
        "{:?}",
        b.notes
    );
    let t = topology::parse("topology.txt", topo).expect("parses");
    let c = import::check_tracert(
        &a,
        &t,
        &lfts_of(osm),
        "tracert.txt",
        include_str!("data/lmc2/tracert.txt"),
    )
    .expect("reads");
    assert_eq!((c.compared, c.disagreements.len()), (56, 0));
}

/// 2,049 hosts, 32 per switch (no switch cabled to another: the check comes before any
/// route is followed): their all-to-all has 4,196,352 transfers, past the 2^22 a model
/// may hold, and is refused at once, naming the most hosts that fit.
#[test]
fn an_all_to_all_past_the_model_limit_is_refused_before_routing() {
    let hosts = 2049u64;
    let switches = hosts.div_ceil(32);
    let mut topo = String::new();
    for s in 0..switches {
        let lid = s + 1;
        let sguid = 0x200000 + s;
        topo += &format!(
            "switchguid=0x{sguid:x}({sguid:x})\nSwitch\t36 \"S-{sguid:016x}\"\t\t# \"sw{s}\" base port 0 lid {lid} lmc 0\n"
        );
        for p in 1..=32u64 {
            let h = s * 32 + p - 1;
            if h < hosts {
                let hguid = 0x100000 + 2 * h;
                topo += &format!(
                    "[{p}]\t\"H-{hguid:016x}\"[1]({:x}) \t\t# \"n{h:04}\" lid {} 4xSDR\n",
                    hguid + 1,
                    1000 + h
                );
            }
        }
        topo += "\n";
    }
    for h in 0..hosts {
        let (s, p) = (h / 32, h % 32 + 1);
        let hguid = 0x100000 + 2 * h;
        topo += &format!(
            "caguid=0x{hguid:x}\nCa\t2 \"H-{hguid:016x}\"\t\t# \"n{h:04}\"\n[1]({:x}) \t\"S-{:016x}\"[{p}]\t\t# lid {} lmc 0 \"sw{s}\" lid {} 4xSDR\n\n",
            hguid + 1,
            0x200000 + s,
            1000 + h,
            s + 1
        );
    }
    // One table, of one entry: the switch's own LID (the tables are checked against the
    // topology before the hosts are chosen).
    let lfts = "Unicast lids [0-1] of switch Lid 1 guid 0x0000000000200000 ('sw0'):\n\
                0x0001 000 # Switch portguid 0x0000000000200000: 'sw0'\n1 lids dumped\n";
    let e = err(run(&topo, lfts));
    assert!(
        e.contains("2049 hosts selected")
            && e.contains("4196352 transfers")
            && e.contains("at most 2048 hosts with --hosts"),
        "{e}"
    );
}

/// Real output with a dual-port adapter cabled on both ports (tests/data/dual-port: its
/// `net` through ibsim and OpenSM's minhop, collected by `scripts/ib-local run net minhop
/// DIR 100`, which traces every adapter LID): hy is routed by its port 1, so the traces
/// from or to hy's port 2 (and between its two ports) are not checked, not disagreements.
#[test]
fn traces_of_a_port_the_model_does_not_route_by_are_not_checked() {
    let topo = include_str!("data/dual-port/topology.txt");
    let lfts = include_str!("data/dual-port/opensm-lfts.dump");
    let m = run(topo, lfts).expect("imports");
    assert_eq!(m.summary.routes, 4 * 3);
    let t = topology::parse("topology.txt", topo).expect("parses");
    let c = import::check_tracert(
        &m,
        &t,
        &lfts_of(lfts),
        "tracert.txt",
        include_str!("data/dual-port/tracert.txt"),
    )
    .expect("reads");
    assert_eq!(
        (c.compared, c.other_port, c.disagreements.len()),
        (12, 8, 0),
        "{:?}",
        c.disagreements
    );
}

#[test]
fn a_link_at_another_rate_gets_its_own_bandwidth() {
    // The fabric runs at 4xSDR (1000 MB/s); the cable between the switches' ports 3 trained
    // at 1X, as ibnetdiscover prints it on both of its ends, in both forms.
    let topo = TOPO
        .replace(
            "[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR",
            "[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 1xSDR",
        )
        .replace(
            "[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR",
            "[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 1xSDR",
        );
    assert_eq!(topo.matches("1xSDR").count(), 2, "the edit applies");
    let ports = TOPO_P
        .replace(
            "SW     3  3 0x0000000000200001 4x SDR",
            "SW     3  3 0x0000000000200001 1x SDR",
        )
        .replace(
            "SW     1  3 0x0000000000200000 4x SDR",
            "SW     1  3 0x0000000000200000 1x SDR",
        );
    assert_eq!(ports.matches("1x SDR").count(), 2, "the edit applies");
    let m = run(&topo, LFTS).expect("imports");
    assert_eq!(m.link_throughput, Some(1000.0));
    let slow: Vec<(&str, Option<f64>)> = m
        .network
        .links
        .iter()
        .zip(&m.link_params)
        .filter(|(_, p)| p.bandwidth.is_some())
        .map(|(l, p)| (l.id.as_str(), p.bandwidth))
        .collect();
    assert_eq!(
        slow,
        [
            ("S-0000000000200000/3", Some(250.0)),
            ("S-0000000000200001/3", Some(250.0))
        ]
    );
    let note = m.notes.join("\n");
    assert!(
        note.contains("2 of 12 links run at another rate than the fabric's 4xSDR (1000 MB/s)")
            && note.contains(
                "S-0000000000200000/3 (\"Switch1\" port 3 -> \"Switch2\") at 1xSDR (250 MB/s)"
            ),
        "{note}"
    );
    assert_eq!(body(&m), body(&run(&ports, LFTS).expect("imports")));
    // The model file carries them.
    let yaml = m.to_yaml();
    assert!(yaml.contains("\nlink_throughput: 1000\n"), "{yaml}");
    assert_eq!(yaml.matches("bandwidth: 250}").count(), 2, "{yaml}");
    liquid_model::yaml::parse_model("m.yaml", &yaml).expect("a valid model");
    // Unchanged, the fabric has one rate and no link its own.
    let plain = run(TOPO, LFTS).expect("imports");
    assert_eq!(plain.link_throughput, Some(1000.0));
    assert!(plain.link_params.iter().all(|p| p.bandwidth.is_none()));
    assert!(plain.notes.is_empty(), "{:?}", plain.notes);
}

#[test]
fn rates_as_ibnetdiscover_prints_them() {
    use liquid_fabric::topology::Rate;
    let mb = |w: &str| Rate::parse_word(w).map(|r| r.mb_s());
    assert_eq!(mb("4xSDR"), Some(1000.0));
    assert_eq!(mb("1xSDR"), Some(250.0));
    assert_eq!(mb("12xQDR"), Some(12000.0));
    assert_eq!(mb("4xEDR"), Some(12500.0));
    assert_eq!(mb("4xHDR"), Some(25000.0));
    assert_eq!(mb("2xNDR"), Some(25000.0));
    assert_eq!(mb("4xFDR10"), Some(5000.0));
    let fdr = mb("4xFDR").expect("FDR");
    assert!((fdr - 6818.18).abs() < 0.01, "{fdr}");
    for w in ["?????", "??xSDR", "4x???", "3xSDR", "4xFOO", "lid"] {
        assert_eq!(mb(w), None, "{w}");
    }
    assert_eq!(
        Rate::parse("4x", "EDR").map(|r| r.to_string()),
        Some("4xEDR".into())
    );
}

// ---- Names and LIDs need to be good among the selected hosts only (explore9 D7) ----

/// Hca3 and Hca4 with the firmware's description (storage servers without rdma-ndd).
fn storage_named() -> String {
    let t = TOPO
        .replace("\"Hca3\"", "\"MT4123 ConnectX6   Mellanox Technologies\"")
        .replace("\"Hca4\"", "\"MT4123 ConnectX6   Mellanox Technologies\"");
    assert_ne!(t, TOPO);
    t
}

#[test]
fn adapters_left_out_that_their_first_word_cannot_name_are_named_by_guid() {
    let topo = storage_named();
    // Every adapter selected: refused as before, and the message says how to leave them out.
    let e = err(run(&topo, LFTS));
    assert!(e.contains("host \"MT4123\" is named twice"), "{e}");
    assert!(
        e.contains("give each adapter a description of its own"),
        "{e}"
    );
    assert!(
        e.contains("--hosts or --hostfile can leave such adapters out"),
        "{e}"
    );
    // A job of Hca1 and Hca2 imports; the two others are named by GUID.
    let sel = hosts::hostlist("--hosts", "Hca[1-2]").expect("a host list");
    let m = run_with(&topo, LFTS, sel, false).expect("imports");
    assert_eq!(
        m.network.hosts,
        ["H-0000000000100006", "H-0000000000100009", "Hca1", "Hca2"]
    );
    assert_eq!(m.summary.routes, 2);
    assert!(
        m.notes.iter().any(|n| n.starts_with(
            "2 adapter(s) left out of the selection named by GUID in the model (H-<GUID>"
        ) && n.contains("\"MT4123\"")),
        "{:?}",
        m.notes
    );
    assert!(m
        .network
        .links
        .iter()
        .any(|l| l.id == "H-0000000000100009/1"));
    let t = liquid_model::yaml::parse_model("m.yaml", &m.to_yaml()).expect("a valid model");
    assert_eq!(t.len(), 2);
    // The routes are those of the fabric with its usual names.
    let plain = run_with(
        TOPO,
        LFTS,
        hosts::hostlist("--hosts", "Hca[1-2]").expect("a host list"),
        false,
    )
    .expect("imports");
    assert_eq!(m.network.routes, plain.network.routes);
    // Selecting one of them is still refused.
    let sel = hosts::hostlist("--hosts", "Hca1,MT4123").expect("a host list");
    let e = err(run_with(&topo, LFTS, sel, false));
    assert!(e.contains("host \"MT4123\" is named twice"), "{e}");
}

#[test]
fn an_empty_description_left_out_is_named_by_guid() {
    let topo = TOPO.replacen(
        "Ca\t2 \"H-0000000000100009\"\t\t# \"Hca4\"",
        "Ca\t2 \"H-0000000000100009\"\t\t# \"\"",
        1,
    );
    assert_ne!(topo, TOPO);
    let e = err(run(&topo, LFTS));
    assert!(e.contains("has an empty node description"), "{e}");
    assert!(
        e.contains("--hosts or --hostfile can leave such adapters out"),
        "{e}"
    );
    let sel = hosts::hostlist("--hosts", "Hca[1-3]").expect("a host list");
    let m = run_with(&topo, LFTS, sel, false).expect("imports");
    assert!(m.network.hosts.contains(&"H-0000000000100009".to_string()));
    assert!(
        m.notes
            .iter()
            .any(|n| n.contains("1 with an empty description")),
        "{:?}",
        m.notes
    );
}

#[test]
fn a_port_with_lid_0_left_out_of_the_selection() {
    // Hca4 came up after ibnetdiscover ran: LID 0 in the topology, LID 6 in the tables.
    let topo = TOPO.replacen("# lid 6 lmc 0", "# lid 0 lmc 0", 1);
    assert_ne!(topo, TOPO);
    let e = err(run(&topo, LFTS));
    assert!(
        e.starts_with("topology.txt:31: the adapter port has LID 0"),
        "{e}"
    );
    assert!(
        e.contains("--hosts or --hostfile can leave this adapter out"),
        "{e}"
    );
    let sel = hosts::hostlist("--hosts", "Hca4,Hca1").expect("a host list");
    let e = err(run_with(&topo, LFTS, sel, false));
    assert!(
        e.starts_with("topology.txt:31: the adapter port has LID 0"),
        "{e}"
    );
    let sel = hosts::hostlist("--hosts", "Hca[1-3]").expect("a host list");
    let m = run_with(&topo, LFTS, sel, false).expect("imports");
    assert_eq!(m.summary.routes, 6);
    assert!(
        m.notes
            .iter()
            .any(|n| n.starts_with("1 adapter(s) left out of the selection have a port with LID 0")),
        "{:?}",
        m.notes
    );
    // Named by its first word still: only its LID is missing.
    assert!(m.network.hosts.contains(&"Hca4".to_string()));
}

#[test]
fn a_multi_rail_host_is_refused_only_when_selected() {
    // Hca1 and Hca2 are the two adapters of host n001 (rdma-ndd's "<hostname> <device>").
    let topo = TOPO
        .replace("\"Hca1\"", "\"n001 mlx5_0\"")
        .replace("\"Hca2\"", "\"n001 mlx5_1\"");
    let sel = hosts::hostlist("--hosts", "n001,Hca3").expect("a host list");
    let e = err(run_with(&topo, LFTS, sel, false));
    assert!(e.contains("host \"n001\" is named twice"), "{e}");
    assert!(e.contains("hosts with several adapters"), "{e}");
    assert!(e.contains("a selection without it works"), "{e}");
    // The convention that caused it is not what the message recommends.
    assert!(
        !e.contains("give each adapter a description of its own"),
        "{e}"
    );
    let sel = hosts::hostlist("--hosts", "Hca[3-4]").expect("a host list");
    let m = run_with(&topo, LFTS, sel, false).expect("imports");
    assert_eq!(
        m.network.hosts,
        ["H-0000000000100000", "H-0000000000100003", "Hca3", "Hca4"]
    );
}

/// LMC 2: ibtracert to a non-base LID of the destination (LID 33 of p4, whose base LID is
/// 32) follows that LID's entries, which OpenSM routes through sw0_1 where the base LID
/// goes through sw0_0; its output names the range (`lid 32-35`), not the LID. Such a
/// trace matches one of the range's routes and is counted apart, not as a disagreement
/// (it was, exit 1); a trace that matches no LID of the range still disagrees.
#[test]
fn a_trace_to_a_non_base_lid_is_not_a_disagreement() {
    let topo = include_str!("data/lmc2/topology.txt");
    let osm = include_str!("data/lmc2/opensm-lfts.dump");
    let m = run(topo, osm).expect("imports");
    let t = topology::parse("topology.txt", topo).expect("parses");
    let to_33 = "From ca {0x0000000000100000} portnum 1 lid 4-7 \"p0 HCA-1\"\n\
                 [1] -> switch port {0x0000000000200002}[1] lid 9-9 \"sw1_0\"\n\
                 [4] -> switch port {0x0000000000200001}[1] lid 8-8 \"sw0_1\"\n\
                 [3] -> switch port {0x0000000000200004}[4] lid 17-17 \"sw1_2\"\n\
                 [1] -> ca port {0x0000000000100009}[1] lid 32-35 \"p4 HCA-1\"\n\
                 To ca {0x0000000000100008} portnum 1 lid 32-35 \"p4 HCA-1\"\n";
    let c = import::check_tracert(&m, &t, &lfts_of(osm), "tracert.txt", to_33).expect("reads");
    assert!(c.disagreements.is_empty(), "{:?}", c.disagreements);
    assert_eq!(c.compared, 0);
    assert_eq!(
        c.other_lid,
        ["tracert.txt:1: p0 -> p4 matches LID 33's route, not the base LID 32's the model follows"]
    );
    // The last hop by another port: no LID of 32-35 is routed so.
    let wrong = to_33.replacen("[1] -> ca port", "[2] -> ca port", 1);
    assert_ne!(wrong, to_33);
    let c = import::check_tracert(&m, &t, &lfts_of(osm), "tracert.txt", &wrong).expect("reads");
    assert_eq!(
        (c.compared, c.other_lid.len(), c.disagreements.len()),
        (1, 0, 1)
    );
}

/// `n[004-001]` was read as n001-n004; Slurm refuses a range that runs backwards.
#[test]
fn a_backward_range_is_refused() {
    let e = hosts::hostlist("--hosts", "n[004-001]").expect_err("backwards");
    assert_eq!(
        e.to_string(),
        "--hosts: the range \"004-001\" in \"n[004-001]\" runs backwards: write it from low to high (as Slurm requires)"
    );
    let e = hosts::hostlist("--hosts", "a1,n[001-002,9 - 5]").expect_err("backwards");
    assert!(e.to_string().contains("the range \"9-5\""), "{e}");
    // Forward ranges and a single number are fine.
    hosts::hostlist("--hosts", "n[001-004,007],m[5-5]").expect("forward");
}

/// rdma-ndd's `%h` is the full host name on many systems, and SLURM_JOB_NODELIST gives
/// short names: a short name that starts exactly one adapter's first word and a dot
/// selects that adapter, with a note; the model names the host as selected.
#[test]
fn a_short_name_selects_the_one_adapter_with_that_full_name() {
    let topo = TOPO
        .replace("\"Hca1\"", "\"Hca1.cluster.example.org HCA-1\"")
        .replace("\"Hca2\"", "\"Hca2.cluster.example.org HCA-1\"");
    let sel = hosts::hostlist("--hosts", "Hca[1-3]").expect("a host list");
    let m = run_with(&topo, LFTS, sel, false).expect("imports");
    assert_eq!(m.network.hosts, ["Hca1", "Hca2", "Hca3", "Hca4"]);
    assert_eq!(m.summary.routes, 6);
    assert!(
        m.notes.iter().any(
            |n| n.starts_with("2 selected host(s) matched by short name")
                && n.contains("Hca1 -> Hca1.cluster.example.org")
        ),
        "{:?}",
        m.notes
    );
    // The full name still selects it.
    let sel = hosts::hostlist("--hosts", "Hca1.cluster.example.org,Hca3").expect("a host list");
    let m = run_with(&topo, LFTS, sel, false).expect("imports");
    assert!(m
        .network
        .hosts
        .contains(&"Hca1.cluster.example.org".to_string()));
    // Two adapters with that short name: it names none.
    let two = TOPO
        .replace("\"Hca1\"", "\"Hca1.a HCA-1\"")
        .replace("\"Hca2\"", "\"Hca1.b HCA-1\"");
    let sel = hosts::hostlist("--hosts", "Hca1,Hca3").expect("a host list");
    let e = err(run_with(&two, LFTS, sel, false));
    assert!(
        e.starts_with("--hosts: host \"Hca1\" is not in the fabric"),
        "{e}"
    );
    assert!(
        e.contains("the descriptions of 2 adapters start with \"Hca1.\""),
        "{e}"
    );
}
