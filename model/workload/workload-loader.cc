/*
 * One entry point for --workload-configuration.
 */

#include "workload-loader.h"

#include "ns3/log.h"

#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraWorkloadLoader");

namespace astra
{

bool
IsTextWorkload(const std::string& spec)
{
    struct stat st;
    if (stat(spec.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    {
        return false;
    }
    auto endsWith = [&](const std::string& suffix) {
        return spec.size() >= suffix.size() &&
               spec.compare(spec.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return !endsWith(".et") && !endsWith(".et.gz");
}

std::vector<WorkloadGraph>
LoadWorkload(const std::string& spec, uint32_t npus, const WorkloadLoadOptions& opts)
{
    if (IsTextWorkload(spec))
    {
        if (npus == 0)
        {
            throw WorkloadError(spec + ": a text workload needs the number of NPUs");
        }
        NS_LOG_INFO("loading text workload " << spec << " for " << npus << " NPUs");
        return ReadTextWorkload(spec, npus, opts.text);
    }
    NS_LOG_INFO("loading Chakra workload " << spec << ".<rank>.et");
    return ReadChakraPrefix(spec, npus, opts.chakra);
}

} // namespace astra
} // namespace ns3
