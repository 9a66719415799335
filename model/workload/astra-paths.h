/*
 * Locating the shared input directory (reference inputs, specs) from tests,
 * examples and helpers.
 */

#ifndef ASTRA_PATHS_H
#define ASTRA_PATHS_H

#include <string>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * \return the module's source directory (compile definition ASTRA_SIM_SOURCE_DIR)
 */
std::string GetSourceDir();

/**
 * \ingroup astra-sim
 * \return the shared directory: $ASTRA_SIM_SHARED_DIR if set and non-empty, else
 *         ASTRA_SIM_SOURCE_DIR "/../shared"
 */
std::string GetSharedDir();

/**
 * \ingroup astra-sim
 * \return GetSharedDir() + "/reference" (real ASTRA-sim inputs)
 */
std::string GetReferenceDir();

} // namespace astra
} // namespace ns3

#endif /* ASTRA_PATHS_H */
