#pragma once
// One rank's MPS check as run.json gives it to scripts (mps_details.per_rank):
// numbers and flags, beside the sentence people read.
#include <string>

namespace mpsfw {

struct MpsRankRecord {
  int local_rank = 0;
  long pid = 0;
  std::string gpu;         // the GPU's UUID
  std::string mig;         // its MIG instance, or ""
  int cap = 0;             // active thread percentage
  std::string pinned;      // the daemon's pinned-memory limit ("8G"), or ""
  int sms = 0;             // SMs the rank sees
  int expected_sms = 0;    // SMs its cap gives (0: unknown)
  int mps_attribute = -1;  // cudaDevAttrMpsEnabled
  bool in_client_list = false;
  bool verified = false;
};

}  // namespace mpsfw
