//! Any bytes as a BehaviorTree.CPP XML file: see `canopy_btcpp::fuzz_one`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| canopy_btcpp::fuzz_one(data));
