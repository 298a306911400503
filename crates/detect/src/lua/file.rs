//! The file functions of Suricata 7's Lua API, `SCFileInfo` and `SCFileState`, as its
//! detection engine answers them.
//!
//! Suricata 7.0.10 registers both for detection scripts but never hands a detection
//! script a file: only output scripts (`needs["type"] = "file"`, which a rule's script
//! may not ask for: its `init` then fails with "unsupported data type type") see one.
//! In a rule, on packets and on transactions alike, each returns two values, `nil` and
//! the reason `"internal error: no file"`, and the script goes on. Checked on Suricata
//! 7.0.10 (tests/data/http-files.pcap, keywords_lua_files.rs): a script matching on a
//! file's name, size, magic or state never matches, one testing for the missing file
//! matches wherever it runs, with `filename`/`filemagic` in the same rule or not.

use mlua::{Lua, MultiValue, Value};

/// What the file functions return besides `nil` in a detection script.
pub(super) const NO_FILE: &str = "internal error: no file";

/// The file functions.
pub(super) const NAMES: [&str; 2] = ["SCFileInfo", "SCFileState"];

/// Registers `SCFileInfo` and `SCFileState`.
pub(super) fn register(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    for name in NAMES {
        g.set(
            name,
            lua.create_function(|lua, _: MultiValue| {
                Ok(MultiValue::from_vec(vec![
                    Value::Nil,
                    Value::String(lua.create_string(NO_FILE)?),
                ]))
            })?,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lua() -> Lua {
        let lua = Lua::new();
        register(&lua).unwrap();
        lua
    }

    #[test]
    fn file_info_is_nil_and_the_reason() {
        let lua = lua();
        let (n, id, err, name): (i64, Value, String, Value) = lua
            .load(
                "local id, err, _, name = SCFileInfo()\n\
                 return select('#', SCFileInfo()), id, err, name",
            )
            .eval()
            .unwrap();
        assert_eq!(n, 2);
        assert!(id.is_nil() && name.is_nil());
        assert_eq!(err, NO_FILE);
    }

    #[test]
    fn file_state_is_nil_and_the_reason() {
        let lua = lua();
        let (n, state, err): (i64, Value, String) = lua
            .load("local s, e = SCFileState('ignored')\nreturn select('#', SCFileState()), s, e")
            .eval()
            .unwrap();
        assert_eq!(n, 2);
        assert!(state.is_nil());
        assert_eq!(err, NO_FILE);
    }

    #[test]
    fn a_script_comparing_file_fields_goes_on() {
        // Comparing the missing name or size raises nothing when the script checks
        // for nil, as Suricata's scripts do; without the check Lua's own error stops it.
        let lua = lua();
        let r: i64 = lua
            .load(
                "local _, _, name, size = SCFileInfo()\n\
                 if name ~= nil and name:find('%.exe$') then return 1 end\n\
                 if size ~= nil and size > 10 then return 1 end\n\
                 return 0",
            )
            .eval()
            .unwrap();
        assert_eq!(r, 0);
        let e = lua
            .load("local _, _, name = SCFileInfo()\nreturn #name")
            .eval::<i64>();
        assert!(e.is_err());
    }
}
