// The Catch2 main for all of fasim's tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
