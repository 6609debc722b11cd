#pragma once
// The consumer's own header of the same name as one of mpsfw's: mpsfw's
// installed headers must never find it (they include <mpsfw/core/base/error.hpp>).
#error "mpsfw's headers included the consumer's own core/base/error.hpp"
