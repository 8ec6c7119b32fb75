// `vmc figure 004-formulas`: every formula of 004 (Watts, §§7-13) beside vmc's simulated
// time for the algorithm it prices, on the meshes and tori of 004's model, as the markdown
// page docs/004-formulas.md. The formulas are written here from 004's text, apart from the
// algorithms' own cost functions (vmc's claims, shown beside them as predicted_s), so the
// table checks the algorithms against the source and not against themselves.
#pragma once

#include <cstdio>

namespace vmc::cli {

// Runs every case (timing only, virtual time) and writes the page to `out`. Throws on a case
// that cannot run.
void print_004_formulas(std::FILE* out);

}  // namespace vmc::cli
