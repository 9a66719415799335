/*
 * AggregationHelper: attaches the in-network aggregation model matching a
 * backend (doc/in-network.rst). For the packet-level RoCE fabric it builds
 * an aggregation engine on every switch of the dimensions the topology marks
 * in_switch: an RDMA endpoint (its own node and RdmaHostStack, the next host
 * indices of the fabric's directory) joined to the switch by an internal
 * port whose rate is the switch's reduction throughput, then recomputes the
 * routes; the analytical and flow-level backends get the closed-form and
 * flow models on the same trees.
 */

#ifndef ASTRA_AGGREGATION_HELPER_H
#define ASTRA_AGGREGATION_HELPER_H

#include "ns3/astra-fabric-helper.h"
#include "ns3/attribute.h"
#include "ns3/in-switch-aggregation.h"
#include "ns3/network-backend.h"
#include "ns3/node-container.h"
#include "ns3/topology.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace astra
{

class AggregationEngine;

/**
 * \ingroup astra-sim
 * Installs in-switch aggregation on a backend.
 *
 * \code
 * AggregationHelper agg;
 * agg.SetAttribute("TreeSlots", UintegerValue(64));
 * Ptr<InSwitchAggregation> in = agg.Install(backend, topo, &fabric); // fabric: roce only
 * \endcode
 *
 * The model is aggregated to the backend, which then offers it through
 * NetworkBackend::GetInSwitchInterface(). Attributes are those of
 * ns3::astra::InSwitchAggregation (and ns3::astra::RoceInSwitch::Priority);
 * their defaults can also be set with Config::SetDefault /
 * --ns3::astra::InSwitchAggregation::Slots=...
 */
class AggregationHelper
{
  public:
    AggregationHelper();

    /**
     * Set an attribute of the model Install creates.
     * \param name attribute of InSwitchAggregation (or RoceInSwitch)
     * \param value its value
     * \throw InputError for an unknown attribute or a bad value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /// \return true if some dimension of \p topo is marked in_switch \param topo the topology
    static bool HasAggregatingDimension(const Topology& topo);

    /**
     * Attach the in-switch model of \p backend's kind: analytical (closed
     * form), flow (fluid model: flows on the tree edges; the store-and-forward
     * Compat model has none and gets none) or roce (engines on the fabric,
     * which must be given and installed).
     * \param backend the backend
     * \param topo the topology it runs on
     * \param fabric the RoCE fabric (roce only)
     * \return the model (null: none for this backend)
     * \throw InputError for a bad attribute or fabric
     */
    Ptr<InSwitchAggregation> Install(Ptr<NetworkBackend> backend,
                                     std::shared_ptr<const Topology> topo,
                                     AstraFabricHelper* fabric = nullptr);

    /// \return the engines' nodes (roce), in switch order
    NodeContainer GetEngineNodes() const;

    /**
     * \return the rate of the internal port joining a switch's engine:
     * ReductionRate x the switch's ports, or the sum of its ports' rates
     * when ReductionRate is 0 (never a bottleneck)
     * \param sw the switch node
     * \param reductionBps ReductionRate (bit/s; 0: line rate)
     */
    static DataRate EngineRate(Ptr<Node> sw, uint64_t reductionBps);

  private:
    /// Build the engines on \p fabric and return them by switch node id
    std::map<uint32_t, Ptr<AggregationEngine>> BuildEngines(AstraFabricHelper& fabric,
                                                            const InSwitchAggregation& model);

    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_attributes; //!< to apply
    NodeContainer m_engineNodes;                                           //!< roce engines
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_AGGREGATION_HELPER_H */
