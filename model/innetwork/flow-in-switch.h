/*
 * The in-switch model of the flow-level (max-min) backend: an operation puts
 * one flow on every directed tree edge it uses (an all-reduce: S up and S
 * down on each), sharing the links max-min with all other traffic; the
 * members' results follow the last drain by the tree's propagation.
 */

#ifndef ASTRA_FLOW_IN_SWITCH_H
#define ASTRA_FLOW_IN_SWITCH_H

#include "in-switch-aggregation.h"

#include "ns3/network-backend.h"

#include <vector>

namespace ns3
{
namespace astra
{

class FlowBackend;

/**
 * \ingroup astra-sim
 * Flow-level in-switch operations on a FlowBackend's links. Where the
 * engine's ReductionRate or the tree's slot window (TreeSlots x SlotPayload
 * per loop time) is below an edge's link rate, the edge's flows also cross
 * an extra resource of that capacity (one per tree edge and direction). The
 * store-and-forward (Compat) flow model has no in-switch model.
 */
class FlowInSwitch : public InSwitchAggregation, private MessageSink
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowInSwitch();
    ~FlowInSwitch() override;

    /**
     * The backend whose links the flows share (the object this model is
     * aggregated to; not owned).
     * \param backend the backend
     */
    void SetFlowBackend(FlowBackend* backend);

  protected:
    void DoDispose() override;
    void StartOperation(uint32_t id) override;
    void TreeBuilt(uint32_t tree) override;

  private:
    void MessageSent(const NetMessage& msg, uint64_t cookie) override;
    void MessageDelivered(const NetMessage& msg) override;

    /// The directed links of tree edge \p e (members' links first) \param tree \param e \param up
    std::vector<uint32_t> EdgeLinks(uint32_t tree, uint32_t e, bool up) const;

    FlowBackend* m_flow{nullptr};              //!< the backend
    std::vector<std::vector<uint32_t>> m_caps; //!< per tree: cap link per edge x 2 (or none)
    std::vector<uint32_t> m_left;              //!< per operation id: flows not drained
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_FLOW_IN_SWITCH_H */
