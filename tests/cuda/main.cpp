// The Catch2 main of the CUDA backend's tests (fasim_cuda_tests).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
