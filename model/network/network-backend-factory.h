/*
 * Network backends by name: "analytical", "flow", "roce", or any backend a
 * program registers. The one place that turns a backend name from a command
 * line or a configuration into an object.
 */

#ifndef ASTRA_NETWORK_BACKEND_FACTORY_H
#define ASTRA_NETWORK_BACKEND_FACTORY_H

#include "network-backend.h"
#include "topology.h"

#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Creates network backends by name through their ns-3 TypeId (so attribute
 * defaults set with Config::SetDefault or on the command line apply).
 *
 * Two kinds of backends are registered:
 * - backends that model the network from the topology alone (analytical,
 *   flow): registered with an attach function; Create() returns them ready;
 * - packet-level backends (roce): they need ns-3 nodes and devices built from
 *   the topology first, so Create() returns them unattached and the caller
 *   attaches the fabric (AstraSimScenario: AstraFabricHelper::Install, then
 *   RoceBackend::SetFabric). NeedsFabric() tells which kind a name is.
 *
 * The registry is process-wide configuration, like ns-3's TypeId registry:
 * it holds no simulation state.
 */
class NetworkBackendFactory
{
  public:
    /**
     * Completes a backend that models the network from the topology alone.
     * \param backend the new backend (of the registered TypeId)
     * \param topo the topology
     * \param compat ASTRA-sim compatibility timing (SystemParams::compat)
     */
    using Attach = void (*)(NetworkBackend& backend,
                            std::shared_ptr<const Topology> topo,
                            bool compat);

    /**
     * Register (or replace) a backend.
     * \param name the name users give (e.g. "analytical")
     * \param tid its TypeId (must have a constructor and derive from NetworkBackend)
     * \param attach how to attach a topology, or nullptr for a backend that needs a fabric
     * \param description one line for help texts
     */
    static void Register(const std::string& name,
                         TypeId tid,
                         Attach attach,
                         const std::string& description);

    /// \return the registered names, in registration order
    static std::vector<std::string> GetNames();

    /**
     * \return one line per registered backend, "name: description"
     */
    static std::string Describe();

    /**
     * Check a backend name.
     * \param name the name
     * \throw InputError for an unknown name, listing the known ones (with a did-you-mean)
     */
    static void CheckName(const std::string& name);

    /**
     * \return true if the backend \p name needs its fabric attached by the caller
     * \param name a registered name (InputError otherwise)
     */
    static bool NeedsFabric(const std::string& name);

    /**
     * Create a backend.
     * \param name a registered name (InputError otherwise, with a did-you-mean)
     * \param topo the topology (attached unless the backend needs a fabric)
     * \param compat ASTRA-sim compatibility timing
     * \return the backend
     */
    static Ptr<NetworkBackend> Create(const std::string& name,
                                      std::shared_ptr<const Topology> topo,
                                      bool compat);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NETWORK_BACKEND_FACTORY_H */
