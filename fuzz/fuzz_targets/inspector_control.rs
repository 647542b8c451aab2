//! Any bytes as a control message from the inspector's page, both kinds
//! (`POST /api/control` and `POST /api/watch`): see
//! `canopy_inspector::control::fuzz_one`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| canopy_inspector::control::fuzz_one(data));
