// decode_fuzz's TMF part (tmf_fuzz.cpp).
#pragma once

#include "decode/tmf.hpp"

#include <cstdint>
#include <random>
#include <vector>

// Reads the TMF seeds (tests/decode/tmfs); aborts when one is missing.
void tmf_seeds();
// One run: a mutated TMF parsed; when it loads, its messages decode and
// format random arguments. Returns whether it loaded.
bool fuzz_tmf(std::mt19937 &rng, void (*mutate)(std::vector<std::uint8_t> &, std::mt19937 &));
