#pragma once
// The consumer's own header of the same name as one of mpsfw's: mpsfw's
// installed headers must never find it (they include <mpsfw/core/input/params.hpp>).
#error "mpsfw's headers included the consumer's own core/input/params.hpp"
