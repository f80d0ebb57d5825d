// The Catch2 main of fasim_tests and fasim_cuda_tests (fasim_catch_main).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
