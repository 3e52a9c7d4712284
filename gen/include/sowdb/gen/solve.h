// Kept for callers of the old name: the start-position search is declared in start_search.h.
#pragma once

#include "sowdb/gen/start_search.h"
