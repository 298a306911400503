//! The DNP3 object types whose points Suricata 7.0.10 decodes, with the field names
//! its `dnp3` records use: a table from (group, variation) to the layout of one point.
//! Objects not in the table are logged without points (and raise
//! `dnp3.unknown_object` when they carry any).

/// One field of a fixed-size point.
#[derive(Clone, Copy, Debug)]
pub enum Field {
    /// One byte split into named bit fields, lowest bits first: (name, width).
    Bits(&'static [(&'static str, u8)]),
    /// An unsigned byte.
    U8(&'static str),
    /// An unsigned 16-bit value (little endian, as every DNP3 field).
    U16(&'static str),
    /// An unsigned 32-bit value.
    U32(&'static str),
    /// A signed 16-bit value (written sign-extended to 64 bits, as Suricata).
    I16(&'static str),
    /// A signed 32-bit value (written sign-extended to 64 bits).
    I32(&'static str),
    /// A 32-bit float.
    F32(&'static str),
    /// A 64-bit float.
    F64(&'static str),
    /// A 48-bit time (milliseconds since the epoch).
    T48(&'static str),
}

impl Field {
    /// Bytes the field takes.
    pub fn size(self) -> usize {
        match self {
            Field::Bits(_) | Field::U8(_) => 1,
            Field::U16(_) | Field::I16(_) => 2,
            Field::U32(_) | Field::I32(_) | Field::F32(_) => 4,
            Field::T48(_) => 6,
            Field::F64(_) => 8,
        }
    }
}

/// How the points of an object type are laid out.
#[derive(Clone, Copy, Debug)]
pub enum Layout {
    /// Points packed `bits` to a point, lowest bits first, in a field `name`. The
    /// object takes `ceil(count / 8)` bytes whatever `bits` is, and yields at most
    /// `8 / bits` points a byte (Suricata's reading of double-bit objects).
    Packed(u8, &'static str),
    /// Fixed-size points of these fields.
    Fixed(&'static [Field]),
}

use Field::{Bits, F32, F64, I16, I32, T48, U16, U32, U8};

const BI: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("chatter_filter", 1),
    ("reserved", 1),
    ("state", 1),
]);
const DBI: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("chatter_filter", 1),
    ("state", 2),
]);
const BO: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("reserved0", 1),
    ("reserved1", 1),
    ("state", 1),
]);
const CTR: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("rollover", 1),
    ("discontinuity", 1),
    ("reserved0", 1),
]);
const CTR_R: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("rollover", 1),
    ("reserved0", 1),
    ("reserved1", 1),
]);
const CTR_D1: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("rollover", 1),
    ("discontinuity", 1),
    ("reserved1", 1),
]);
const AI: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("over_range", 1),
    ("reference_err", 1),
    ("reserved0", 1),
]);
const SEC: Field = Bits(&[
    ("online", 1),
    ("restart", 1),
    ("comm_lost", 1),
    ("remote_forced", 1),
    ("local_forced", 1),
    ("reserved0", 1),
    ("discontinuity", 1),
    ("reserved1", 1),
]);
const CROB_CODE: Field = Bits(&[("op_type", 4), ("qu", 1), ("cr", 1), ("tcc", 2)]);
const CROB_STATUS: Field = Bits(&[("status_code", 7), ("reserved", 1)]);
const CMD_STATUS: Field = Bits(&[("status_code", 7), ("commanded_state", 1)]);
const AO_STATUS: Field = Bits(&[("status_code", 7), ("reserved0", 1)]);
const TS: Field = T48("timestamp");
const CROB: &[Field] = &[
    CROB_CODE,
    U8("count"),
    U32("ontime"),
    U32("offtime"),
    CROB_STATUS,
];

/// The layout of the points of group `g` variation `v`; `None`: not decoded.
pub fn layout(g: u8, v: u8) -> Option<Layout> {
    use Layout::{Fixed, Packed};
    let f = |x: &'static [Field]| Some(Fixed(x));
    match (g, v) {
        (1, 1) | (10, 1) | (80, 1) => Some(Packed(1, "state")),
        (12, 3) => Some(Packed(1, "point")),
        (3, 1) => Some(Packed(2, "state")),
        (1, 2) => f(&[BI]),
        (2, 1) => f(&[U8("state")]),
        (2, 2) => f(&[BI, TS]),
        (2, 3) => f(&[BI, U16("timestamp")]),
        (3, 2) | (4, 1) => f(&[DBI]),
        (4, 2) => f(&[DBI, TS]),
        (4, 3) => f(&[DBI, U16("relative_time_ms")]),
        (10, 2) | (11, 1) => f(&[BO]),
        (11, 2) => f(&[BO, TS]),
        (12, 1) | (12, 2) => f(CROB),
        (13, 1) => f(&[CMD_STATUS]),
        (13, 2) => f(&[CMD_STATUS, TS]),
        (20, 1) | (21, 1) | (22, 1) | (23, 1) => f(&[CTR, U32("count")]),
        (20, 2) | (21, 2) | (22, 2) => f(&[CTR, U16("count")]),
        (20, 3) | (21, 3) | (22, 3) | (23, 3) => f(&[CTR_R, U32("count")]),
        (20, 4) | (21, 4) | (22, 4) | (23, 2) | (23, 4) => f(&[CTR_R, U16("count")]),
        (20, 5) | (20, 7) | (21, 9) | (21, 11) => f(&[U32("count")]),
        (20, 6) | (20, 8) | (21, 10) | (21, 12) => f(&[U16("count")]),
        (21, 5) => f(&[CTR_D1, U32("count"), TS]),
        (21, 6) => f(&[CTR_D1, U16("count"), TS]),
        (23, 5) => f(&[CTR, U32("count"), TS]),
        (22, 6) | (23, 6) => f(&[CTR, U16("count"), TS]),
        (21, 7) | (22, 5) | (22, 7) | (23, 7) => f(&[CTR_R, U32("count"), TS]),
        (21, 8) | (22, 8) | (23, 8) => f(&[CTR_R, U16("count"), TS]),
        (30, 1) | (31, 1) | (32, 1) | (33, 1) | (40, 1) | (42, 1) => f(&[AI, I32("value")]),
        (30, 2) | (31, 2) | (32, 2) | (33, 2) | (40, 2) | (42, 2) => f(&[AI, I16("value")]),
        (30, 3) | (31, 5) => f(&[I32("value")]),
        (30, 4) | (31, 6) => f(&[I16("value")]),
        (30, 5) | (31, 7) | (32, 5) | (33, 5) | (40, 3) | (42, 5) => f(&[AI, F32("value")]),
        (30, 6) | (31, 8) | (32, 6) | (33, 6) | (40, 4) | (42, 6) => f(&[AI, F64("value")]),
        (31, 3) | (32, 3) | (33, 3) | (42, 3) => f(&[AI, I32("value"), TS]),
        (31, 4) | (32, 4) | (33, 4) | (42, 4) => f(&[AI, I16("value"), TS]),
        (32, 7) | (33, 7) | (42, 7) => f(&[AI, F32("value"), TS]),
        (32, 8) | (33, 8) | (42, 8) => f(&[AI, F64("value"), TS]),
        (34, 1) => f(&[U16("deadband_value")]),
        (34, 2) => f(&[U32("deadband_value")]),
        (34, 3) => f(&[F32("deadband_value")]),
        (41, 1) => f(&[I32("value"), U8("control_status")]),
        (41, 2) => f(&[I16("value"), U8("control_status")]),
        (41, 3) => f(&[F32("value"), U8("control_status")]),
        (41, 4) => f(&[F64("value"), U8("control_status")]),
        (43, 1) => f(&[AO_STATUS, I32("commanded_value")]),
        (43, 2) => f(&[AO_STATUS, I16("commanded_value")]),
        (43, 3) => f(&[AO_STATUS, I32("commanded_value"), TS]),
        (43, 4) => f(&[AO_STATUS, I16("commanded_value"), TS]),
        (43, 5) => f(&[AO_STATUS, F32("commanded_value")]),
        (43, 6) => f(&[AO_STATUS, F64("commanded_value")]),
        (43, 7) => f(&[AO_STATUS, F32("commanded_value"), TS]),
        (43, 8) => f(&[AO_STATUS, F64("commanded_value"), TS]),
        (50, 1) | (50, 3) | (51, 1) | (51, 2) => f(&[TS]),
        (50, 2) => f(&[TS, U32("interval")]),
        (50, 4) => f(&[TS, U32("interval_count"), U8("interval_units")]),
        (52, 1) => f(&[U16("delay_secs")]),
        (52, 2) => f(&[U16("delay_ms")]),
        (81, 1) => f(&[
            Bits(&[("fill_percentage", 7), ("overflow_state", 1)]),
            U8("group"),
            U8("variation"),
        ]),
        (86, 2) => f(&[Bits(&[
            ("rd", 1),
            ("wr", 1),
            ("st", 1),
            ("ev", 1),
            ("df", 1),
            ("padding0", 1),
            ("padding1", 1),
            ("padding2", 1),
        ])]),
        (102, 1) => f(&[U8("value")]),
        (120, 3) => f(&[U32("csq"), U16("user_number")]),
        (120, 4) => f(&[U16("user_number")]),
        (121, 1) | (122, 1) => f(&[SEC, U16("association_id"), U32("count_value")]),
        (122, 2) => f(&[SEC, U16("association_id"), U32("count_value"), TS]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_fields_fill_their_byte() {
        for g in 0..=255u8 {
            for v in 0..=255u8 {
                if let Some(Layout::Fixed(fields)) = layout(g, v) {
                    for f in fields {
                        if let Field::Bits(b) = f {
                            let w: u32 = b.iter().map(|(_, w)| u32::from(*w)).sum();
                            assert_eq!(w, 8, "g{g}v{v}");
                        }
                    }
                }
            }
        }
        assert!(layout(60, 1).is_none() && layout(20, 9).is_none());
    }
}
