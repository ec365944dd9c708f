//! One state's value in one byte, and in a file with its depth in two.
//!
//! In memory the value byte is the margin as a signed byte, its lowest bit
//! (always 0 in a margin, which is even: see `layers` in build.rs) set when
//! the value is an endless 0.
//! In a file each state is a little-endian `u16`: the low 6 bits hold half
//! the margin plus 24 (0..=48), the high 10 bits the depth, [`ENDLESS`] for
//! an endless 0.

/// The depth field of an endless 0.
pub(crate) const ENDLESS: u16 = 1023;
/// The largest depth a file holds; deeper states are stored as this.
pub(crate) const DEPTH_MAX: u16 = 1022;

/// The value byte of `margin` (even, -48..=48) and the endless mark.
pub(crate) fn encode(margin: i8, endless: bool) -> u8 {
    debug_assert!(margin % 2 == 0, "margins are even");
    (margin as u8) | u8::from(endless)
}

/// The margin of a value byte.
pub(crate) fn margin(byte: u8) -> i8 {
    (byte & !1) as i8
}

/// Whether a value byte marks an endless 0.
pub(crate) fn endless(byte: u8) -> bool {
    byte & 1 == 1
}

/// The file's `u16` of a value byte and a depth (ignored for an endless 0).
pub(crate) fn pack(byte: u8, depth: u16) -> u16 {
    let code = (i16::from(margin(byte)) / 2 + 24) as u16;
    let depth = if endless(byte) {
        ENDLESS
    } else {
        depth.min(DEPTH_MAX)
    };
    code | depth << 6
}

/// The value byte and depth of a file's `u16`, or `None` when it is not
/// one a solve writes.
pub(crate) fn unpack(word: u16) -> Option<(u8, u16)> {
    let code = word & 0x3f;
    let depth = word >> 6;
    if code > 48 || (depth == ENDLESS && code != 24) {
        return None;
    }
    let margin = (code as i8 - 24) * 2;
    Some((encode(margin, depth == ENDLESS), depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_margin_and_the_endless_mark_round_trip() {
        for m in (-48..=48).step_by(2) {
            let byte = encode(m, false);
            assert_eq!((margin(byte), endless(byte)), (m, false));
        }
        let byte = encode(0, true);
        assert_eq!((margin(byte), endless(byte)), (0, true));
        for m in (-48..=48).step_by(2) {
            for depth in [0, 1, 254, 255, 1000, DEPTH_MAX] {
                let byte = encode(m, false);
                assert_eq!(unpack(pack(byte, depth)), Some((byte, depth)));
            }
        }
        assert_eq!(pack(encode(2, false), 5000) >> 6, DEPTH_MAX);
        assert_eq!(
            unpack(pack(encode(0, true), 7)),
            Some((encode(0, true), ENDLESS))
        );
        assert_eq!(unpack(49), None);
        assert_eq!(unpack(ENDLESS << 6 | 25), None);
    }
}
