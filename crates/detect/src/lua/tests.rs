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

fn run_on(c: &LuaC, payload: &[u8]) -> bool {
    c.matches(&packet(payload), payload, None)
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
    std::fs::write(
        d.join("uri.lua"),
        "function init(args)\n local n = {}\n n[\"http.uri\"] = tostring(true)\n return n\nend\nfunction match(args) return 1 end\n",
    )
    .unwrap();
    let e = compile(&opt("uri.lua", false), &cfg(&d), None).unwrap_err();
    assert!(
        e.unsupported && e.message.contains("http.uri"),
        "{}",
        e.message
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
