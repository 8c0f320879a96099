/// \file algorithms.hpp
/// \brief Section 11.5's algorithm tables (one per backend), exported by its kernel libraries.
#pragma once
#include "scanlab/section.hpp"
SCANLAB_DECLARE_SECTION(s11_5)
