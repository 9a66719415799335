#include "event-batcher.h"

#include "ns3/simulator.h"

#include <unordered_map>
#include <vector>

namespace ns3
{
namespace astra
{

namespace
{
/// One item: fn(obj, msg.bytes, msg.tag) for plain items (the two integers ride in the
/// message's fields), mfn(obj, msg) for message items.
struct BatchItem
{
    EventBatcher::Fn fn;
    EventBatcher::MsgFn mfn;
    void* obj;
    NetMessage msg;
    const void* touch; //!< prefetch hint
};

/// items ahead whose memory a running batch prefetches
constexpr size_t kPrefetchAhead = 6;

inline void
RunItem(const BatchItem& it)
{
    if (it.mfn)
    {
        it.mfn(it.obj, it.msg);
    }
    else
    {
        it.fn(it.obj, it.msg.bytes, it.msg.tag);
    }
}

/// The batcher of the current simulation (Reset() at Simulator::Destroy empties it).
struct BatcherState
{
    bool enabled{false};
    bool destroyHooked{false}; //!< Reset() is registered with Simulator::ScheduleDestroy
    /// incremented by Reset(): ns-3 events of older batches (a simulation that was not
    /// destroyed) find a different generation and do nothing
    uint64_t gen{0};
    uint64_t items{0}; //!< items run in this process (a statistic: Reset() keeps it)
    std::vector<std::vector<BatchItem>> batches; //!< by batch id
    std::vector<uint32_t> freeBatches;           //!< reusable batch ids
    std::unordered_map<int64_t, uint32_t> open;  //!< time step -> batch id (not yet run)
    static constexpr uint32_t kMru = 4;          //!< recently used entries of `open`
    int64_t mruT[kMru]{};
    uint32_t mruB[kMru]{};
    bool mruValid[kMru]{};
    uint32_t mruNext{0};                           //!< round-robin replacement
    uint32_t mruLast{0};                           //!< the entry used last
    std::vector<std::function<void()>> fns;        //!< callables of pending items, by slot
    void (*runBatch)(uint32_t, uint64_t){nullptr}; //!< EventBatcher::RunBatch (set when enabled)
    std::vector<uint32_t> freeFns;
};

BatcherState g_batcher; //!< per simulation: emptied by Reset() at Simulator::Destroy

inline BatcherState&
State()
{
    return g_batcher;
}

void
RunSingle(BatchItem it)
{
    RunItem(it);
}

void
CallFn(void*, uint64_t slot, uint64_t)
{
    BatcherState& s = State();
    std::function<void()> f = std::move(s.fns[slot]);
    s.fns[slot] = nullptr;
    s.freeFns.push_back(static_cast<uint32_t>(slot));
    f();
}
} // namespace

namespace
{
/// \return the batch id for Now() + delay; \p created tells that the caller must schedule it
uint32_t
BatchFor(BatcherState& s, int64_t delay, bool& created)
{
    created = false;
    const int64_t t = EventBatcher::NowSteps() + delay;
    if (s.mruT[s.mruLast] == t && s.mruValid[s.mruLast])
    {
        return s.mruB[s.mruLast]; // the same time as the previous item (a step's messages)
    }
    for (uint32_t k = 0; k < BatcherState::kMru; ++k)
    {
        if (s.mruT[k] == t && s.mruValid[k])
        {
            s.mruLast = k;
            return s.mruB[k];
        }
    }
    uint32_t id;
    auto it = s.open.find(t);
    if (it != s.open.end())
    {
        id = it->second;
    }
    else
    {
        if (s.freeBatches.empty())
        {
            id = static_cast<uint32_t>(s.batches.size());
            s.batches.emplace_back();
        }
        else
        {
            id = s.freeBatches.back();
            s.freeBatches.pop_back();
        }
        s.open.emplace(t, id);
        created = true;
    }
    const uint32_t k = s.mruNext++ % BatcherState::kMru;
    s.mruValid[k] = true;
    s.mruT[k] = t;
    s.mruB[k] = id;
    s.mruLast = k;
    return id;
}

/// Add \p item \p delay time steps from now: to its batch, or as its own ns-3 event
void
AddItem(int64_t delay, const BatchItem& item)
{
    BatcherState& s = State();
    if (!s.enabled)
    {
        Simulator::Schedule(TimeStep(delay), &RunSingle, item);
        return;
    }
    bool created;
    const uint32_t id = BatchFor(s, delay, created);
    if (created)
    {
        Simulator::Schedule(TimeStep(delay), s.runBatch, id, s.gen);
    }
    s.batches[id].push_back(item);
}
} // namespace

void
EventBatcher::Schedule(Time delay, Fn fn, void* obj, uint64_t a, uint64_t b)
{
    ScheduleSteps(delay.GetTimeStep(), fn, obj, a, b);
}

void
EventBatcher::ScheduleSteps(int64_t delay, Fn fn, void* obj, uint64_t a, uint64_t b)
{
    BatchItem item{fn, nullptr, obj, NetMessage{}, nullptr};
    item.msg.bytes = a;
    item.msg.tag = b;
    AddItem(delay, item);
}

void
EventBatcher::ScheduleMessage(Time delay,
                              MsgFn fn,
                              void* obj,
                              const NetMessage& msg,
                              const void* touch)
{
    ScheduleMessageSteps(delay.GetTimeStep(), fn, obj, msg, touch);
}

void
EventBatcher::ScheduleMessageSteps(int64_t delay,
                                   MsgFn fn,
                                   void* obj,
                                   const NetMessage& msg,
                                   const void* touch)
{
    AddItem(delay, BatchItem{nullptr, fn, obj, msg, touch});
}

bool EventBatcher::s_running = false;
int64_t EventBatcher::s_nowT = 0;

void
EventBatcher::Schedule(Time delay, std::function<void()> f)
{
    BatcherState& s = State();
    if (!s.enabled)
    {
        Simulator::Schedule(delay, std::move(f));
        return;
    }
    uint32_t slot;
    if (s.freeFns.empty())
    {
        slot = static_cast<uint32_t>(s.fns.size());
        s.fns.push_back(std::move(f));
    }
    else
    {
        slot = s.freeFns.back();
        s.freeFns.pop_back();
        s.fns[slot] = std::move(f);
    }
    Schedule(delay, &CallFn, nullptr, slot, 0);
}

void
EventBatcher::RunBatch(uint32_t id, uint64_t gen)
{
    BatcherState& s = State();
    if (gen != s.gen || id >= s.batches.size())
    {
        return; // reset meanwhile
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    s_running = true;
    s_nowT = now;
    // items scheduled for now while the batch runs are appended and run in order
    for (size_t i = 0; i < s.batches[id].size(); ++i)
    {
        const std::vector<BatchItem>& b = s.batches[id];
        if (i + kPrefetchAhead < b.size())
        {
            // items of one batch touch unrelated objects (one per NPU): fetch ahead
            const BatchItem& f = b[i + kPrefetchAhead];
            if (f.obj)
            {
                __builtin_prefetch(f.obj);
                __builtin_prefetch(static_cast<const char*>(f.obj) + 64);
            }
            if (f.touch)
            {
                __builtin_prefetch(f.touch);
            }
        }
        const BatchItem it = b[i];
        ++s.items;
        RunItem(it);
        if (gen != s.gen)
        {
            return; // an item reset the batcher
        }
    }
    s_running = false;
    s.open.erase(now);
    for (uint32_t k = 0; k < BatcherState::kMru; ++k)
    {
        if (s.mruB[k] == id)
        {
            s.mruValid[k] = false;
        }
    }
    s.batches[id].clear();
    s.freeBatches.push_back(id);
}

void
EventBatcher::SetEnabled(bool on)
{
    BatcherState& s = State();
    s.enabled = on;
    s.runBatch = &EventBatcher::RunBatch;
    if (on && !s.destroyHooked)
    {
        s.destroyHooked = true;
        Simulator::ScheduleDestroy(&EventBatcher::Reset);
    }
}

bool
EventBatcher::IsEnabled()
{
    return State().enabled;
}

uint64_t
EventBatcher::GetItemCount()
{
    return State().items;
}

void
EventBatcher::Reset()
{
    BatcherState& s = State();
    s.enabled = false;
    s.destroyHooked = false;
    s.gen++;
    s.batches.clear();
    s.freeBatches.clear();
    s.open.clear();
    for (uint32_t k = 0; k < BatcherState::kMru; ++k)
    {
        s.mruValid[k] = false;
    }
    s.mruNext = 0;
    s.mruLast = 0;
    s_running = false;
    s.fns.clear();
    s.freeFns.clear();
}

} // namespace astra
} // namespace ns3
