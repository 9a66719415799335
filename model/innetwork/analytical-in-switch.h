/*
 * The in-switch model of the congestion-unaware analytical backend: an
 * operation costs its tree's closed form (InSwitchAggregation::ClosedFormNs),
 * with no interaction with other traffic.
 */

#ifndef ASTRA_ANALYTICAL_IN_SWITCH_H
#define ASTRA_ANALYTICAL_IN_SWITCH_H

#include "in-switch-aggregation.h"

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Closed-form in-switch operations: member m's result arrives
 * ClosedFormNs(op, tree, m) after the operation started (rounded to the ns;
 * its contribution completes at the same time), and the tree is free after
 * the last member's. Events go through EventBatcher, like the analytical
 * backend's.
 */
class AnalyticalInSwitch : public InSwitchAggregation
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AnalyticalInSwitch();
    ~AnalyticalInSwitch() override;

  protected:
    void StartOperation(uint32_t id) override;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ANALYTICAL_IN_SWITCH_H */
