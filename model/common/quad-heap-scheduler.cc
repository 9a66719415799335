#include "quad-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/boolean.h"
#include "ns3/event-impl.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(QuadHeapScheduler);

namespace
{

/// \param p array position of a node (> 3) \return the position of its parent
inline std::size_t
Parent(std::size_t p)
{
    return p / 4 + 2;
}

/// \param p array position of a node \return the position of its first child
inline std::size_t
FirstChild(std::size_t p)
{
    return 4 * p - 8;
}

/**
 * Place e at position p or above it, moving later parents down.
 * \param h entry array \param p start position \param e the entry
 */
template <class E>
inline void
SiftUp(E* h, std::size_t p, const E& e)
{
    while (p > 3)
    {
        const std::size_t q = Parent(p);
        if (!(e.key < h[q].key))
        {
            break;
        }
        h[p] = h[q];
        p = q;
    }
    h[p] = e;
}

/**
 * The position of the smallest key among positions [c, end) (at most four).
 * \param h entry array \param c first child position \param end first position past the heap
 * \return position of the smallest key
 */
template <class E>
inline std::size_t
MinChild(const E* h, std::size_t c, std::size_t end)
{
    if (c + 3 < end)
    {
        // branch-free: the outcome of each comparison is a coin toss in a heap
        const auto k0 = h[c].key;
        const auto k1 = h[c + 1].key;
        const auto k2 = h[c + 2].key;
        const auto k3 = h[c + 3].key;
        const bool b01 = k1 < k0;
        const bool b23 = k3 < k2;
        const std::size_t a = c + b01;
        const std::size_t b = c + 2 + b23;
        const auto ka = b01 ? k1 : k0;
        const auto kb = b23 ? k3 : k2;
        return kb < ka ? b : a;
    }
    std::size_t m = c;
    for (std::size_t j = c + 1; j < end; ++j)
    {
        if (h[j].key < h[m].key)
        {
            m = j;
        }
    }
    return m;
}

} // namespace

TypeId
QuadHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::QuadHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<QuadHeapScheduler>()
                            .AddAttribute("PrefetchAhead",
                                          "Run the prefetch routines of the next events' classes "
                                          "(RegisterPrefetch) while removing an event: a hint to "
                                          "the caches that changes no result. Off only for "
                                          "schedulers fed events that are not EventImpl objects.",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&QuadHeapScheduler::m_prefetch),
                                          MakeBooleanChecker())
                            .AddAttribute("PrefetchMinEvents",
                                          "Look ahead only while at least this many events are "
                                          "pending: a fabric small enough for the caches (the "
                                          "128-host anchor of roce-bench, about 300 pending) "
                                          "runs 8 % slower with it, a 256-NPU one (about 2,000) "
                                          "13 % faster.",
                                          UintegerValue(1024),
                                          MakeUintegerAccessor(&QuadHeapScheduler::m_prefetchMin),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

QuadHeapScheduler::QuadHeapScheduler() = default;

QuadHeapScheduler::~QuadHeapScheduler()
{
    std::free(m_heap);
}

void
QuadHeapScheduler::Grow()
{
    const std::size_t cap = m_capacity == 0 ? 1024 : 2 * m_capacity;
    const std::size_t positions = cap + kBase;
    const std::size_t bytes = ((positions * sizeof(Entry) + 63) / 64) * 64;
    Entry* h = static_cast<Entry*>(std::aligned_alloc(64, bytes));
    if (!h)
    {
        throw std::bad_alloc();
    }
    if (m_size > 0)
    {
        std::memcpy(static_cast<void*>(h + kBase), m_heap + kBase, m_size * sizeof(Entry));
    }
    std::free(m_heap);
    m_heap = h;
    m_capacity = cap;
}

void
QuadHeapScheduler::Insert(const Scheduler::Event& ev)
{
    InsertWithTie(ev, ev.key.m_uid);
}

void
QuadHeapScheduler::InsertWithTie(const Scheduler::Event& ev, uint64_t tie)
{
    if (m_size == m_capacity)
    {
        Grow();
    }
    const std::size_t p = kBase + m_size;
    ++m_size;
    SiftUp(m_heap, p, Entry::From(ev, tie));
}

bool
QuadHeapScheduler::IsEmpty() const
{
    return m_size == 0;
}

Scheduler::Event
QuadHeapScheduler::PeekNext() const
{
    NS_ASSERT(m_size > 0);
    return m_heap[kBase].ToEvent();
}

Scheduler::Event
QuadHeapScheduler::RemoveNext()
{
    const Scheduler::Event ev = PeekNext();
    --m_size;
    if (m_size == 0)
    {
        return ev;
    }
    const std::size_t end = kBase + m_size; // the old last position, now outside the heap
    const Entry last = m_heap[end];
    // walk the root's hole down to a leaf along the smaller children...
    std::size_t p = kBase;
    for (std::size_t c = FirstChild(p); c < end; c = FirstChild(p))
    {
        // the grandchildren: eight lines, fetched together while the children are compared
        // (a heap of thousands of events does not stay in the L1)
        const std::size_t g = FirstChild(c);
        if (g < end)
        {
            const char* a = reinterpret_cast<const char*>(m_heap + g);
            for (int l = 0; l < 8; ++l)
            {
                __builtin_prefetch(a + 64 * l);
            }
        }
        const std::size_t m = MinChild(m_heap, c, end);
        m_heap[p] = m_heap[m];
        p = m;
    }
    // ...and lift the former last element from there
    SiftUp(m_heap, p, last);
    if (m_prefetch && m_size >= m_prefetchMin && s_nPrefetch)
    {
        PrefetchAhead();
    }
    return ev;
}

void
QuadHeapScheduler::PrefetchAhead() const
{
    // The next kPrefetchStages + 1 events as the heap stands now (events scheduled meanwhile
    // may come first: these are hints only, nothing depends on them): the last one's object
    // is prefetched, and each earlier one runs the stage of its class's prefetch routine that
    // its distance from the head gives, reading only lines the previous stage prefetched.
    constexpr std::size_t kAhead = kPrefetchStages + 1;
    const std::size_t end = kBase + m_size;
    std::size_t ahead[kAhead];
    std::size_t nAhead = 0;
    // candidates: children of the events taken so far (at most 3 x kPrefetchStages + 1)
    std::size_t cand[4 * kAhead] = {};
    std::size_t nCand = 0;
    std::size_t p = kBase;
    while (true)
    {
        ahead[nAhead++] = p;
        if (nAhead == kAhead)
        {
            break;
        }
        for (std::size_t c = FirstChild(p), e = std::min(c + 4, end); c < e; ++c)
        {
            cand[nCand++] = c;
        }
        if (nCand == 0)
        {
            break;
        }
        std::size_t best = 0;
        for (std::size_t j = 1; j < nCand; ++j)
        {
            if (m_heap[cand[j]].key < m_heap[cand[best]].key)
            {
                best = j;
            }
        }
        p = cand[best];
        cand[best] = cand[--nCand];
    }
    if (nAhead == kAhead)
    {
        __builtin_prefetch(m_heap[ahead[kAhead - 1]].impl);
    }
    // stage s runs on the event s + 1 places before the prefetched one
    for (std::size_t s = 0; s < kPrefetchStages; ++s)
    {
        const std::size_t j = kAhead - 2 - s;
        if (j < nAhead)
        {
            RunPrefetch(m_heap[ahead[j]].impl, s);
        }
    }
}

void
QuadHeapScheduler::RunPrefetch(const EventImpl* e, std::size_t stage)
{
    const std::type_info* ti = &typeid(*e);
    for (std::size_t i = 0; i < s_nPrefetch; ++i)
    {
        if (s_prefetch[i].ti == ti)
        {
            s_prefetch[i].fn(e, stage);
            return;
        }
    }
}

void
QuadHeapScheduler::RegisterPrefetch(const std::type_info& ti, PrefetchFn fn)
{
    for (std::size_t i = 0; i < s_nPrefetch; ++i)
    {
        if (*s_prefetch[i].ti == ti)
        {
            s_prefetch[i].fn = fn;
            return;
        }
    }
    if (s_nPrefetch < kMaxPrefetchTypes) // beyond that a class simply gets no look-ahead
    {
        s_prefetch[s_nPrefetch++] = PrefetchEntry{&ti, fn};
    }
}

bool
QuadHeapScheduler::IsPendingAt(uint64_t ts, uint32_t uid) const
{
    // the pending events of time stamp ts (none is earlier) form a subtree at the root
    const std::size_t end = kBase + m_size;
    m_walk.clear();
    if (m_size > 0 && m_heap[kBase].Ts() == ts)
    {
        m_walk.push_back(kBase);
    }
    while (!m_walk.empty())
    {
        const std::size_t p = m_walk.back();
        m_walk.pop_back();
        if (m_heap[p].uid == uid)
        {
            return true;
        }
        for (std::size_t c = FirstChild(p), e = std::min(c + 4, end); c < e; ++c)
        {
            if (m_heap[c].Ts() == ts)
            {
                m_walk.push_back(c);
            }
        }
    }
    return false;
}

void
QuadHeapScheduler::Remove(const Scheduler::Event& ev)
{
    const std::size_t end = kBase + m_size;
    std::size_t p = kBase;
    while (p < end && m_heap[p].uid != ev.key.m_uid)
    {
        ++p;
    }
    NS_ASSERT_MSG(p < end, "QuadHeapScheduler::Remove: event not pending");
    if (p == end)
    {
        return;
    }
    --m_size;
    const std::size_t lastPos = kBase + m_size;
    if (p == lastPos)
    {
        return;
    }
    const Entry e = m_heap[lastPos];
    if (p > kBase && e.key < m_heap[Parent(p)].key)
    {
        SiftUp(m_heap, p, e);
        return;
    }
    // sift down from p, the heap now ending at lastPos
    for (std::size_t c = FirstChild(p); c < lastPos; c = FirstChild(p))
    {
        const std::size_t m = MinChild(m_heap, c, lastPos);
        if (!(m_heap[m].key < e.key))
        {
            break;
        }
        m_heap[p] = m_heap[m];
        p = m;
    }
    m_heap[p] = e;
}

} // namespace astra
} // namespace ns3
