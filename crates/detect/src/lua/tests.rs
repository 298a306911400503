use super::*;

/// A directory of scripts for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("osprey-lua-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cfg(d: &Path) -> LuaConfig {
    LuaConfig {
        allow_rules: true,
        rule_path: Some(d.to_path_buf()),
        ..LuaConfig::default()
    }
}

fn opt(file: &str, negated: bool) -> rules::keywords::LuaScript {
    rules::keywords::LuaScript {
        file: file.into(),
        negated,
        buffer: None,
    }
}

const PAYLOAD_INIT: &str = "function init(args)\n  local needs = {}\n  needs[\"payload\"] = tostring(true)\n  return needs\nend\n";

fn script(d: &Path, name: &str, body: &str) {
    std::fs::write(d.join(name), format!("{PAYLOAD_INIT}{body}")).unwrap();
}

/// A packet whose payload is `payload` (the frame is the payload alone).
fn packet(payload: &[u8]) -> wire::Packet {
    wire::Packet {
        payload_off: 0,
        payload_len: payload.len() as u32,
        ip_version: 4,
        src: [10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        dst: [10, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        proto: 6,
        sport: 1234,
        dport: 80,
        ts: wire::Timestamp::from_secs_micros(1_700_000_000, 250),
        ..Default::default()
    }
}

#[test]
fn flow_variables_are_read_and_written_by_index() {
    let d = dir("vars");
    std::fs::write(
        d.join("v.lua"),
        "function init(args)\n local n = {}\n n[\"flowvar\"] = {\"a\"}\n n[\"flowint\"] = {\"c\"}\n n[\"payload\"] = tostring(true)\n return n\nend\n\
         function match(args)\n if ScFlowintGet(0) == nil then ScFlowintSet(0, 41) end\n local v = ScFlowintIncr(0)\n \
         ScFlowvarSet(0, \"hello\", 4)\n if v == 42 and ScFlowvarGet(0) == \"hell\" then return 1 end\n return 0\nend\n",
    )
    .unwrap();
    let mut c = compile(&opt("v.lua", false), &cfg(&d), None).unwrap();
    c.ints[0].id = 3;
    let mut fd = FlowDetect::default();
    assert!(c.matches(&packet(b"x"), b"x", None, &fd));
    // Written to the flow at the end of the packet.
    apply_writes(&mut fd);
    fd.vars.end_packet();
    assert_eq!(fd.int(3), Some(42));
    assert_eq!(fd.flowints().collect::<Vec<_>>(), vec![(3, 42)]);
    assert_eq!(
        fd.vars.flow().collect::<Vec<_>>(),
        vec![("a", &b"hell"[..])]
    );
    // Next packet: read from the flow (43 now, no match).
    assert!(!c.matches(&packet(b"x"), b"x", None, &fd));
    apply_writes(&mut fd);
    assert_eq!(fd.int(3), Some(43));
    // An index not declared is an error, counted.
    std::fs::write(
        d.join("bad.lua"),
        format!("{PAYLOAD_INIT}function match(args) return ScFlowintGet(5) end\n"),
    )
    .unwrap();
    let b = compile(&opt("bad.lua", false), &cfg(&d), None).unwrap();
    let before = ERRORS.load(Ordering::Relaxed);
    assert!(!b.matches(&packet(b"x"), b"x", None, &fd));
    assert!(ERRORS.load(Ordering::Relaxed) > before);
}

#[test]
fn time_string_and_epoch_as_suricata() {
    // Suricata 7.0.10 printed 12/27/2022-21:26:18.000277 for 1672176378.000277.
    assert_eq!(
        time_string(1_672_176_378, 277),
        "12/27/2022-21:26:18.000277"
    );
    assert_eq!(time_string(951_782_400, 0), "02/29/2000-00:00:00.000000");
    assert_eq!(txdata::epoch("2022-12-27T21:26:18"), Some(1_672_176_378));
    assert_eq!(txdata::epoch("2000-02-29T00:00:00"), Some(951_782_400));
    assert_eq!(txdata::epoch("garbage"), None);
}

fn run_on(c: &LuaC, payload: &[u8]) -> bool {
    c.matches(&packet(payload), payload, None, &FlowDetect::default())
}

#[test]
fn payload_script_matches_and_negates() {
    let d = dir("match");
    script(
        &d,
        "get.lua",
        "function match(args)\n  local a = tostring(args[\"payload\"])\n  if string.find(a, \"GET /lua\", 1, true) then return 1 end\n  return 0\nend\n",
    );
    let c = compile(&opt("get.lua", false), &cfg(&d), None).unwrap();
    assert!(run_on(&c, b"GET /lua HTTP/1.1\r\n"));
    assert!(!run_on(&c, b"GET /other HTTP/1.1\r\n"));
    assert!(!run_on(&c, b""), "payload scripts need a payload");
    let n = compile(&opt("get.lua", true), &cfg(&d), None).unwrap();
    assert!(!run_on(&n, b"GET /lua HTTP/1.1\r\n"));
    assert!(run_on(&n, b"POST / HTTP/1.1\r\n"));
}

#[test]
fn api_functions_see_the_packet() {
    let d = dir("api");
    script(
        &d,
        "api.lua",
        "function match(args)\n  local v, s, ds, p, sp, dp = SCPacketTuple()\n  local sec, usec = SCPacketTimestamp()\n  if v == 4 and s == \"10.0.0.1\" and ds == \"10.0.0.2\" and p == 6 and sp == 1234 and dp == 80 and sec == 1700000000 and usec == 250 and SCPacketPayload() == \"x\" then return 1 end\n  return 0\nend\n",
    );
    let c = compile(&opt("api.lua", false), &cfg(&d), None).unwrap();
    assert!(run_on(&c, b"x"));
    assert!(!run_on(&c, b"y"));
}

#[test]
fn refused_unless_allowed_and_on_bad_scripts() {
    let d = dir("refuse");
    script(&d, "ok.lua", "function match(args) return 1 end\n");
    let off = LuaConfig {
        allow_rules: false,
        ..cfg(&d)
    };
    let e = compile(&opt("ok.lua", false), &off, None).unwrap_err();
    assert!(e.message.contains("allow-rules"), "{}", e.message);
    let e = compile(&opt("missing.lua", false), &cfg(&d), None).unwrap_err();
    assert!(!e.unsupported && e.message.contains("missing.lua"));
    std::fs::write(d.join("syntax.lua"), "function init(args) return {\n").unwrap();
    let e = compile(&opt("syntax.lua", false), &cfg(&d), None).unwrap_err();
    assert!(
        !e.unsupported && e.message.contains("syntax.lua"),
        "{}",
        e.message
    );
    let needs = |name: &str, need: &str| {
        std::fs::write(
            d.join(name),
            format!("function init(args)\n local n = {{}}\n n[\"{need}\"] = tostring(true)\n return n\nend\nfunction match(args) return 1 end\n"),
        )
        .unwrap();
        compile(&opt(name, false), &cfg(&d), None)
    };
    // A need Osprey does not evaluate: unsupported, with its name.
    let e = needs("stream.lua", "stream").unwrap_err();
    assert!(
        e.unsupported && e.message.contains("stream"),
        "{}",
        e.message
    );
    // A need Suricata does not know: the rule fails, as Suricata's does.
    let e = needs("foo.lua", "foo").unwrap_err();
    assert!(!e.unsupported && e.message.contains("foo"), "{}", e.message);
    // Transaction needs: the script inspects that protocol's transactions.
    for (need, proto, key) in [
        ("http.uri", app::AppProto::Http, "http.uri"),
        (
            "http.response_headers",
            app::AppProto::Http,
            "http.response_headers",
        ),
        ("dns.rrname", app::AppProto::Dns, "dns.rrname"),
        ("tls", app::AppProto::Tls, ""),
        ("ssh", app::AppProto::Ssh, ""),
    ] {
        let c = needs(&format!("{need}.lua"), need).unwrap();
        let t = c.script.needs.tx.as_ref().unwrap();
        assert_eq!((t.proto, t.key.as_str()), (proto, key), "{need}");
        assert_eq!(
            t.both,
            matches!(need, "tls" | "ssh" | "http.response_headers")
        );
    }
    // `buffer` needs a sticky buffer before the keyword.
    let e = needs("buffer.lua", "buffer").unwrap_err();
    assert!(e.message.contains("sticky"), "{}", e.message);
    let sticky = rules::keywords::LuaScript {
        buffer: Some(rules::Buffer::HttpUri),
        ..opt("buffer.lua", false)
    };
    let c = compile(&sticky, &cfg(&d), None).unwrap();
    let t = c.script.needs.tx.as_ref().unwrap();
    assert_eq!(
        (t.key.as_str(), t.buf),
        ("buffer", app::BufferId::by_name("http.uri"))
    );
    // Next to the rule file when the rule path does not have it.
    let other = dir("refuse-rp");
    let rp = LuaConfig {
        rule_path: Some(other),
        ..cfg(&d)
    };
    assert!(compile(&opt("ok.lua", false), &rp, Some(&d.join("x.rules"))).is_ok());
}

#[test]
fn sandbox_refuses_os_io_and_loaders() {
    let d = dir("sandbox");
    for (name, body) in [
        ("os.lua", "os.execute(\"touch /tmp/osprey-lua-pwned\")"),
        ("io.lua", "io.open(\"/etc/passwd\")"),
        ("dofile.lua", "dofile(\"/etc/passwd\")"),
        ("require.lua", "require(\"os\")"),
        ("loadstring.lua", "loadstring(\"return 1\")()"),
    ] {
        script(
            &d,
            name,
            &format!("function match(args)\n  {body}\n  return 1\nend\n"),
        );
        let c = compile(&opt(name, false), &cfg(&d), None).unwrap();
        let before = ERRORS.load(Ordering::Relaxed);
        assert!(!run_on(&c, b"x"), "{name} matched");
        assert!(
            ERRORS.load(Ordering::Relaxed) > before,
            "{name} not counted"
        );
    }
    assert!(!Path::new("/tmp/osprey-lua-pwned").exists());
}

#[test]
fn infinite_loop_is_stopped_and_counted() {
    let d = dir("loop");
    script(
        &d,
        "loop.lua",
        "function match(args)\n  while true do end\nend\n",
    );
    let c = compile(&opt("loop.lua", false), &cfg(&d), None).unwrap();
    let before = INSTRUCTION_LIMIT.load(Ordering::Relaxed);
    assert!(!run_on(&c, b"x"));
    assert!(INSTRUCTION_LIMIT.load(Ordering::Relaxed) > before);
    // The state stays usable: the next call runs again (and is stopped again).
    assert!(!run_on(&c, b"x"));
    assert!(INSTRUCTION_LIMIT.load(Ordering::Relaxed) > before + 1);
}

#[test]
fn memory_bomb_is_stopped_and_counted() {
    let d = dir("mem");
    script(
        &d,
        "mem.lua",
        "function match(args)\n  local t = {}\n  local s = string.rep(\"x\", 1024)\n  for i = 1, 100000 do t[i] = s .. i end\n  return 1\nend\n",
    );
    let c = compile(
        &opt("mem.lua", false),
        &LuaConfig {
            max_instructions: u64::MAX,
            ..cfg(&d)
        },
        None,
    )
    .unwrap();
    let before = MEMORY_LIMIT.load(Ordering::Relaxed);
    assert!(!run_on(&c, b"x"));
    assert!(MEMORY_LIMIT.load(Ordering::Relaxed) > before);
    let names: Vec<_> = counters().iter().map(|c| c.0).collect();
    assert!(names.contains(&"detect.lua.memory_limit_errors"));
}

#[test]
fn file_functions_answer_no_file_and_file_needs_fail() {
    let d = dir("file");
    // The file functions exist and answer no file: the script goes on and matches.
    script(
        &d,
        "nofile.lua",
        "function match(args)\n  local id, err = SCFileInfo()\n  local st, e2 = SCFileState()\n  \
         if id == nil and st == nil and err == \"internal error: no file\" and e2 == err then return 1 end\n  \
         return 0\nend\n",
    );
    let c = compile(&opt("nofile.lua", false), &cfg(&d), None).unwrap();
    assert!(run_on(&c, b"x"));
    // An output script's file need fails the rule with Suricata's words.
    std::fs::write(
        d.join("type.lua"),
        "function init(args)\n local n = {}\n n[\"type\"] = \"file\"\n return n\nend\nfunction match(args) return 1 end\n",
    )
    .unwrap();
    let e = compile(&opt("type.lua", false), &cfg(&d), None).unwrap_err();
    assert!(
        !e.unsupported && e.message.contains("unsupported data type type"),
        "{}",
        e.message
    );
    // A function of Suricata's API that Osprey lacks: unsupported, named.
    script(
        &d,
        "thread.lua",
        "function match(args)\n  local tid = SCThreadInfo()\n  return 1\nend\n",
    );
    let e = compile(&opt("thread.lua", false), &cfg(&d), None).unwrap_err();
    assert!(
        e.unsupported && e.message.contains("SCThreadInfo"),
        "{}",
        e.message
    );
    // Suricata's SC-named flow variable functions are the Sc ones.
    std::fs::write(
        d.join("sc.lua"),
        "function init(args)\n local n = {}\n n[\"flowint\"] = {\"c\"}\n n[\"payload\"] = tostring(true)\n return n\nend\n\
         function match(args)\n SCFlowintSet(0, 41)\n if SCFlowintIncr(0) == 42 and ScFlowintGet(0) == 42 then return 1 end\n return 0\nend\n",
    )
    .unwrap();
    let c = compile(&opt("sc.lua", false), &cfg(&d), None).unwrap();
    assert!(run_on(&c, b"x"));
}

/// A script without `match` loads (Suricata 7.0.10 takes the rule: difftest
/// `lua/broken`) and never matches.
#[test]
fn a_script_without_match_loads_and_never_matches() {
    let d = dir("nomatch");
    script(&d, "none.lua", "-- no match function\n");
    let c = compile(&opt("none.lua", false), &cfg(&d), None).unwrap();
    assert!(!run_on(&c, b"anything"));
    assert!(!run_on(&c, b""));
}
