/*
 * Locating the shared input directory.
 */

#include "astra-paths.h"

#include <cstdlib>

#ifndef ASTRA_SIM_SOURCE_DIR
#define ASTRA_SIM_SOURCE_DIR "."
#endif

namespace ns3
{
namespace astra
{

std::string
GetSourceDir()
{
    return ASTRA_SIM_SOURCE_DIR;
}

std::string
GetSharedDir()
{
    const char* env = std::getenv("ASTRA_SIM_SHARED_DIR");
    if (env != nullptr && env[0] != '\0')
    {
        return env;
    }
    return std::string(ASTRA_SIM_SOURCE_DIR) + "/../shared";
}

std::string
GetReferenceDir()
{
    return GetSharedDir() + "/reference";
}

} // namespace astra
} // namespace ns3
