#include "sowdb/probe/rules.h"
