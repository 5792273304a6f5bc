set(TRACELAB_WARNINGS -Wall -Wextra -Wpedantic -Wno-sign-compare)
