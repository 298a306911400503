//! `lua` / `luajit`: a Lua detection script named by the rule (`lua:[!]<file>`), run
//! by the detection engine (`detect::lua`).

use super::{Ctx, Keyword, Kind, Value};
use crate::ast::Opt;
use crate::diag::Reason;
use crate::parser::state::State;

/// A `lua` option: the script file as written and whether its result is negated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LuaScript {
    /// The file as written (relative paths are resolved by the engine against
    /// `default-rule-path`, else the rule file's directory).
    pub file: String,
    /// `lua:!file`: the rule matches when the script does not.
    pub negated: bool,
    /// The sticky buffer in effect where the keyword stands (the script's
    /// `args["buffer"]`), if any.
    pub buffer: Option<crate::Buffer>,
}

/// The Lua keywords.
pub(super) const KEYWORDS: &[Keyword] = &[Keyword::new("lua", Value::Required, Kind::Option, lua)
    .aliases(&["luajit"])
    .about(
        "match via a lua script",
        "rules/rule-lua-scripting.html#lua-scripting-for-detection",
    )];

fn lua(st: &mut State, c: &Ctx<'_>) {
    let v = c.val.trim();
    let v = v
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(v);
    let (negated, file) = match v.strip_prefix('!') {
        Some(f) => (true, f.trim()),
        None => (false, v),
    };
    if file.is_empty() {
        st.err(
            c.o.value_off,
            Reason::InvalidValue,
            c.kw,
            "lua needs a script file name".to_string(),
        );
        return;
    }
    let buffer = st.sticky.as_ref().map(|s| s.buffer);
    st.options.push(Opt::Lua(LuaScript {
        file: file.to_owned(),
        negated,
        buffer,
    }));
}

#[cfg(test)]
mod tests {
    use crate::ast::Opt;

    fn opts(r: &str) -> Vec<Opt> {
        crate::parse_rule(r).unwrap().options
    }

    #[test]
    fn parses_file_and_negation() {
        let o = opts("alert tcp any any -> any any (lua:!dir/x.lua; sid:1;)");
        assert!(o
            .iter()
            .any(|o| matches!(o, Opt::Lua(s) if s.negated && s.file == "dir/x.lua")));
        let o = opts("alert tcp any any -> any any (luajit:x.lua; sid:1;)");
        assert!(o
            .iter()
            .any(|o| matches!(o, Opt::Lua(s) if !s.negated && s.file == "x.lua")));
    }

    #[test]
    fn empty_name_is_an_error() {
        assert!(crate::parse_rule("alert tcp any any -> any any (lua:!; sid:1;)").is_err());
        let o = opts("alert http any any -> any any (http.uri; lua:x.lua; sid:1;)");
        assert!(o
            .iter()
            .any(|o| matches!(o, Opt::Lua(s) if s.buffer == Some(crate::Buffer::HttpUri))));
    }
}
