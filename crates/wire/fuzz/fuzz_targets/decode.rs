//! Feeds arbitrary bytes to the decoder under a link type chosen by the first two bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wire::{Decoded, Decoder, DecoderConfig, LinkType, Timestamp};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let link = LinkType(u16::from_le_bytes([data[0], data[1]]) % 300);
    let frame = &data[2..];
    let mut dec = Decoder::new(DecoderConfig {
        verify_checksums: true,
        ipv4_in_ipv4: true,
        ..DecoderConfig::default()
    });
    let mut out = Decoded::new();
    dec.decode(link, frame, Timestamp(0), frame.len() as u32, &mut out);
    for p in out.packets() {
        assert_eq!(p.payload(frame).len(), p.payload_len as usize);
    }
});
