//! Initial packet protection (RFC 9001 §5): keys derived from the client's first
//! destination connection id and the version's public salt, header protection removed
//! with AES-128-ECB, the payload opened with AES-128-GCM.

use aes::cipher::{generic_array::GenericArray, BlockEncrypt};
use aes::Aes128;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::Aes128Gcm;
use hkdf::Hkdf;
use sha2::Sha256;

const SALT_V1: [u8; 20] = [
    0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad,
    0xcc, 0xbb, 0x7f, 0x0a,
];
const SALT_DRAFT29: [u8; 20] = [
    0xaf, 0xbf, 0xec, 0x28, 0x99, 0x93, 0xd2, 0x4c, 0x9e, 0x97, 0x86, 0xf1, 0x9c, 0x61, 0x11, 0xe0,
    0x43, 0x90, 0xa8, 0x99,
];
const SALT_DRAFT23: [u8; 20] = [
    0xc3, 0xee, 0xf7, 0x12, 0xc7, 0x2e, 0xbb, 0x5a, 0x11, 0xa7, 0xd2, 0x43, 0x2b, 0xb4, 0x63, 0x65,
    0xbe, 0xf9, 0xf5, 0x02,
];

/// The initial salt of a version whose Initial packets can be opened.
fn salt(version: u32) -> Option<&'static [u8; 20]> {
    match version {
        1 => Some(&SALT_V1),
        0xff00_001d..=0xff00_0022 => Some(&SALT_DRAFT29),
        0xff00_0017..=0xff00_001c => Some(&SALT_DRAFT23),
        _ => None,
    }
}

/// The keys of one direction.
#[derive(Clone)]
pub struct DirKeys {
    aead: Aes128Gcm,
    iv: [u8; 12],
    hp: Aes128,
}

impl core::fmt::Debug for DirKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("DirKeys")
    }
}

/// The Initial keys of both directions.
#[derive(Clone, Debug)]
pub struct Keys {
    /// Client to server.
    pub client: DirKeys,
    /// Server to client.
    pub server: DirKeys,
}

fn expand_label(secret: &[u8], label: &[u8], out: &mut [u8]) -> Option<()> {
    let hk = Hkdf::<Sha256>::from_prk(secret).ok()?;
    let len = u16::try_from(out.len()).ok()?;
    let mut info = Vec::with_capacity(label.len() + 10);
    info.extend_from_slice(&len.to_be_bytes());
    info.push(u8::try_from(label.len() + 6).ok()?);
    info.extend_from_slice(b"tls13 ");
    info.extend_from_slice(label);
    info.push(0);
    hk.expand(&info, out).ok()
}

fn dir_keys(initial: &[u8], label: &[u8]) -> Option<DirKeys> {
    let mut secret = [0u8; 32];
    expand_label(initial, label, &mut secret)?;
    let (mut key, mut iv, mut hp) = ([0u8; 16], [0u8; 12], [0u8; 16]);
    expand_label(&secret, b"quic key", &mut key)?;
    expand_label(&secret, b"quic iv", &mut iv)?;
    expand_label(&secret, b"quic hp", &mut hp)?;
    Some(DirKeys {
        aead: Aes128Gcm::new(GenericArray::from_slice(&key)),
        iv,
        hp: Aes128::new(GenericArray::from_slice(&hp)),
    })
}

impl Keys {
    /// The Initial keys of `version` for the client's destination connection id;
    /// `None` when the version has no known salt.
    pub fn initial(version: u32, dcid: &[u8]) -> Option<Keys> {
        let (prk, _) = Hkdf::<Sha256>::extract(Some(salt(version)?), dcid);
        Some(Keys {
            client: dir_keys(&prk, b"client in")?,
            server: dir_keys(&prk, b"server in")?,
        })
    }
}

/// Removes the header protection of the packet `pkt` (its packet number starts at
/// `pn_offset`) and opens its payload: the plaintext frames, or `None` when the packet
/// is too short or does not authenticate.
pub fn open(k: &DirKeys, pkt: &[u8], pn_offset: usize) -> Option<Vec<u8>> {
    let sample = pkt.get(pn_offset + 4..pn_offset + 20)?;
    let mut mask = GenericArray::clone_from_slice(sample);
    k.hp.encrypt_block(&mut mask);
    let first = pkt[0] ^ (mask[0] & 0x0f);
    let pn_len = usize::from(first & 3) + 1;
    let mut header = pkt[..pn_offset + pn_len].to_vec();
    header[0] = first;
    let mut pn = 0u64;
    for i in 0..pn_len {
        header[pn_offset + i] ^= mask[1 + i];
        pn = (pn << 8) | u64::from(header[pn_offset + i]);
    }
    let mut nonce = k.iv;
    for (n, p) in nonce[4..].iter_mut().zip(pn.to_be_bytes()) {
        *n ^= p;
    }
    let msg = &pkt[pn_offset + pn_len..];
    k.aead
        .decrypt(
            GenericArray::from_slice(&nonce),
            Payload { msg, aad: &header },
        )
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9001 Appendix A: the client Initial with DCID 0x8394c8f03e515708.
    #[test]
    fn rfc9001_sample_keys_open_a_packet() {
        let dcid = [0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08];
        let keys = Keys::initial(1, &dcid).unwrap();
        assert_eq!(
            keys.client.iv,
            [0xfa, 0x04, 0x4b, 0x2f, 0x42, 0xa3, 0xfd, 0x3b, 0x46, 0xfb, 0x25, 0x5c]
        );
        assert_eq!(
            keys.server.iv,
            [0x0a, 0xc1, 0x49, 0x3c, 0xa1, 0x90, 0x58, 0x53, 0xb0, 0xbb, 0xa0, 0x3e]
        );
        assert!(Keys::initial(0x6b33_43cf, &dcid).is_none());
        // A packet too short to sample, or forged, does not open.
        assert!(open(&keys.client, &[0xc0; 30], 18).is_none());
        assert!(open(&keys.client, &[0xc0; 80], 18).is_none());
    }
}
