// The co-operative branch of generate() (GenerateOptions::objective). Not installed.
#pragma once

#include <functional>

#include "sowdb/gen/generate.h"

namespace sowdb::gen {

// Builds co-operative layers 0..options.max_stones into options.out, which generate() has
// prepared (created, locked, checked against the rule set and objective, manifest written):
// reuses each layer whose file reads, solves and writes the others. `check_writable` is called
// once, before the first layer this run writes. Errors as generate().
// Throws Stopped when options.stop asks to stop during layer n (layers below it complete).
void stop_if_asked(const GenerateOptions& options, int n);

void generate_reach_layers(const GenerateOptions& options,
                           const std::function<void()>& check_writable);

}  // namespace sowdb::gen
