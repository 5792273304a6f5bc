// A planted violation for the layering test's self-check: the bridge including a private core header.
#include "function/detail/tracer.h"
#include "tracelab/tracelab.h"
