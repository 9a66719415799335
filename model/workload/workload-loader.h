/*
 * One entry point for --workload-configuration: Chakra prefix or text workload.
 */

#ifndef ASTRA_WORKLOAD_LOADER_H
#define ASTRA_WORKLOAD_LOADER_H

#include "chakra-reader.h"
#include "text-workload.h"

#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// Options of LoadWorkload.
struct WorkloadLoadOptions
{
    ChakraReadOptions chakra; //!< for Chakra prefixes
    TextWorkloadOptions text; //!< for ASTRA-sim 1.0 text workloads
};

/**
 * \ingroup astra-sim
 * Load the per-rank graphs of a workload: if `spec` names an existing file that is not a
 * .et file, it is read as an ASTRA-sim 1.0 text workload (ReadTextWorkload); otherwise it
 * is a Chakra prefix (ReadChakraPrefix, files spec.<rank>.et).
 * \param spec --workload-configuration value
 * \param npus number of NPUs of the topology (0 = as many Chakra files as found; a text
 *        workload needs npus > 0)
 * \param opts options
 * \return graphs, index = rank
 * \throw WorkloadError
 */
std::vector<WorkloadGraph> LoadWorkload(const std::string& spec,
                                        uint32_t npus,
                                        const WorkloadLoadOptions& opts = WorkloadLoadOptions());

/// \return true if `spec` would be loaded as a text workload by LoadWorkload
bool IsTextWorkload(const std::string& spec);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_WORKLOAD_LOADER_H */
