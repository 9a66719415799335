#include "bucket-scheduler.h"

#include "quad-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/boolean.h"
#include "ns3/event-impl.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(BucketScheduler);

namespace
{
constexpr std::size_t kMinBuckets = 256;      //!< smallest calendar
constexpr std::size_t kMaxBuckets = 1u << 20; //!< largest calendar
constexpr uint64_t kEpoch = 32768;            //!< removals between two looks at the load, at most
constexpr uint64_t kDenseFront = 32;          //!< mean events per front above: narrower buckets
constexpr uint64_t kSparseFront = 6;          //!< mean events per front below: wider buckets
constexpr uint64_t kAimFront = 12;            //!< mean events per front a resize aims at
constexpr uint32_t kMaxShift = 62;            //!< widest bucket: 2^62 time steps
} // namespace

TypeId
BucketScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::BucketScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("AstraSim")
            .AddConstructor<BucketScheduler>()
            .AddAttribute("PrefetchAhead",
                          "Run the prefetch routines of the next events' classes "
                          "(QuadHeapScheduler::RegisterPrefetch) while removing an event: a "
                          "hint to the caches that changes no result. Off only for "
                          "schedulers fed events that are not EventImpl objects.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&BucketScheduler::m_prefetch),
                          MakeBooleanChecker())
            .AddAttribute("PrefetchMinEvents",
                          "Look ahead only while at least this many events are pending (a "
                          "fabric small enough for the caches gains nothing from it).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&BucketScheduler::m_prefetchMin),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

BucketScheduler::BucketScheduler()
{
    m_nb = kMinBuckets;
    m_buckets.resize(m_nb);
    m_bits.assign(m_nb / 64, 0);
}

BucketScheduler::~BucketScheduler() = default;

void
BucketScheduler::Insert(const Scheduler::Event& ev)
{
    InsertWithTie(ev, ev.key.m_uid);
}

void
BucketScheduler::InsertWithTie(const Scheduler::Event& ev, uint64_t tie)
{
    const uint64_t b = ev.key.m_ts >> m_shift;
    if (b + kRewind < m_cur)
    {
        // the current bucket was taken far ahead by a look at the next event (PeekNext: a
        // distributed simulator's time window) before this earlier one came (from another
        // rank): every pending event is re-bucketed around the current time, else all
        // the events scheduled until the far one would be inserted into the front in order
        Rebuild(m_shift, m_nb);
    }
    // how many bucket numbers ahead, as bits (0 for the current bucket or earlier)
    ++m_aheadLog2[b > m_cur ? 64 - __builtin_clzll(b - m_cur) : 0];
    Place(Entry::From(ev, tie));
    ++m_size;
    if (m_front.size() < kKeep && m_size > m_front.size())
    {
        Refill();
    }
}

void
BucketScheduler::Place(const Entry& e)
{
    const uint64_t b = e.Ts() >> m_shift;
    if (b <= m_cur)
    {
        InsertFront(e);
    }
    else if (b - m_cur <= m_nb)
    {
        const std::size_t slot = std::size_t(b) & (m_nb - 1);
        std::vector<Entry>& v = m_buckets[slot];
        if (v.empty())
        {
            if (v.capacity() == 0 && !m_pool.empty())
            {
                v.swap(m_pool.back()); // the array freed last (warm in the caches)
                m_pool.pop_back();
            }
            m_bits[slot >> 6] |= uint64_t(1) << (slot & 63);
        }
        v.push_back(e);
        ++m_inBuckets;
    }
    else
    {
        m_far.push_back(e);
        std::push_heap(m_far.begin(), m_far.end(), Later);
    }
}

void
BucketScheduler::PlaceInto(const Entry& e, std::vector<Entry>& batch)
{
    if ((e.Ts() >> m_shift) <= m_cur)
    {
        batch.push_back(e); // sorted with the rest of the batch
    }
    else
    {
        Place(e);
    }
}

void
BucketScheduler::InsertFront(const Entry& e)
{
    // latest first: an event earlier than all (a same-time event) goes to the end
    if (m_front.empty() || e.key < m_front.back().key)
    {
        m_front.push_back(e);
        return;
    }
    if (e.key > m_front.front().key)
    {
        // later than all of the front: sorted when the front runs low (a flood of
        // same-time events costs no quadratic insertion)
        m_late.push_back(e);
        NoteLength(m_late.size()); // it would be a long front
        return;
    }
    const auto at = std::partition_point(m_front.begin(), m_front.end(), [&e](const Entry& x) {
        return x.key > e.key;
    });
    m_front.insert(at, e);
    NoteLength(m_front.size()); // each insertion moves a long array
}

void
BucketScheduler::TakeBucket(std::size_t slot, std::vector<Entry>& out)
{
    std::vector<Entry>& v = m_buckets[slot];
    m_inBuckets -= v.size();
    if (out.empty())
    {
        out.swap(v); // no copy; the slot gets out's array, empty
    }
    else
    {
        out.insert(out.end(), v.begin(), v.end());
        v.clear();
    }
    if (v.capacity() != 0)
    {
        m_pool.emplace_back(std::move(v)); // for the next slot that fills
        v = std::vector<Entry>();
    }
}

void
BucketScheduler::DrainFar(std::vector<Entry>& batch)
{
    while (!m_far.empty() && (m_far.front().Ts() >> m_shift) - m_cur <= m_nb)
    {
        std::pop_heap(m_far.begin(), m_far.end(), Later);
        const Entry e = m_far.back();
        m_far.pop_back();
        PlaceInto(e, batch);
    }
}

void
BucketScheduler::Refill(bool need)
{
    // keep kKeep events in the front (the next one and the look-ahead's): the next batch,
    // all later than the front, goes before it (latest first)
    while (m_front.size() < kKeep && m_size > m_front.size())
    {
        if (!m_late.empty())
        {
            m_next.swap(m_late); // the rest of the current bucket
        }
        else
        {
            uint64_t b;       // the next bucket with events
            std::size_t slot; // its calendar slot, if it is in the calendar
            if (m_inBuckets == 0)
            {
                NS_ASSERT(!m_far.empty());
                b = m_far.front().Ts() >> m_shift; // nothing in the calendar: the far heap
                slot = m_nb;
            }
            else
            {
                // the next non-empty slot after the current bucket, in calendar order
                const std::size_t mask = m_nb - 1;
                const std::size_t start = std::size_t(m_cur + 1) & mask;
                const std::size_t words = m_nb / 64;
                std::size_t w = start >> 6;
                uint64_t bits = m_bits[w] & (~uint64_t(0) << (start & 63));
                while (bits == 0)
                {
                    w = (w + 1) & (words - 1);
                    bits = m_bits[w];
                }
                slot = (w << 6) | std::size_t(__builtin_ctzll(bits));
                b = m_cur + 1 + ((slot - start) & mask);
            }
            // Ahead of need only when near the front's latest event (or, empty, the
            // current time): the front takes every event scheduled before its bucket's
            // end, and far ahead of the time that would be most events, each inserted in
            // order. So a lone far event (a watchdog, a timer) is taken only once it is
            // the next to run, not while the event just removed may still schedule
            // earlier ones.
            const uint64_t near =
                m_front.empty() ? m_now >> m_shift : m_front.front().Ts() >> m_shift;
            if (b - near > kPullAhead && !(need && m_front.empty()))
            {
                return;
            }
            m_cur = b;
            if (slot < m_nb)
            {
                m_bits[slot >> 6] &= ~(uint64_t(1) << (slot & 63));
                TakeBucket(slot, m_next);
            }
            DrainFar(m_next); // the calendar's end moved with m_cur
        }
        ++m_advances;
        std::sort(m_next.begin(), m_next.end(), Later);
        m_next.insert(m_next.end(), m_front.begin(), m_front.end());
        m_front.swap(m_next);
        m_next.clear();
    }
}

void
BucketScheduler::MaybeResize()
{
    // events served per front (per advance): a few dozen keep the sorting and the front's
    // insertions short and the advances rare
    const uint64_t mean = m_removed / std::max<uint64_t>(m_advances, 1);
    m_removed = 0;
    m_advances = 0;
    m_epoch = std::min(kEpoch, 2 * m_epoch); // quick to fit at the start, then steady
    m_narrowed = false;
    m_crowded = false;
    uint32_t shift = m_shift;
    if (mean > kDenseFront)
    {
        for (uint64_t m = mean; m > kAimFront && shift > 0; m /= 2)
        {
            --shift;
        }
    }
    else if (mean < kSparseFront)
    {
        for (uint64_t m = mean; m < kAimFront && shift < kMaxShift; m *= 2)
        {
            ++shift;
        }
    }
    // the calendar spans the delays of nearly all the events scheduled in this epoch (its
    // buckets' arrays stay few and warm); an event beyond it costs a heap insertion
    uint64_t total = 0;
    for (uint64_t c : m_aheadLog2)
    {
        total += c;
    }
    std::size_t bits = 0;
    for (uint64_t sum = 0; bits < 64 && sum + sum / 32 < total; ++bits)
    {
        sum += m_aheadLog2[bits];
    }
    // bucket numbers ahead needing `bits` bits, in buckets of the new width
    const uint32_t newBits =
        uint32_t(bits) + m_shift > shift ? uint32_t(bits) + m_shift - shift : 0;
    std::size_t nb = newBits >= 20 ? kMaxBuckets : std::size_t(1) << newBits;
    // no more buckets than a few per pending event (an epoch of few insertions, at the
    // start, says little about the delays)
    std::size_t cap = kMinBuckets;
    while (cap < 4 * m_size && cap < kMaxBuckets)
    {
        cap *= 2;
    }
    nb = std::min(cap, std::max(kMinBuckets, nb));
    if (shift == m_shift && nb < m_nb && nb > m_nb / 16)
    {
        nb = m_nb; // shrink only far below the calendar (the delays of bursts vary)
    }
    std::fill(std::begin(m_aheadLog2), std::end(m_aheadLog2), 0);
    if (shift != m_shift || nb != m_nb)
    {
        Rebuild(shift, nb);
    }
}

void
BucketScheduler::Narrow()
{
    m_crowded = false;
    m_narrowed = true; // once an epoch: a front of one time stamp stays crowded
    // the width that would put about kAimFront of the current bucket's events (front and
    // late ones) in each bucket, from the density of its earliest ones (a lone later event
    // in it says nothing of the load)
    std::vector<uint64_t> ts;
    ts.reserve(m_front.size() + m_late.size());
    for (const Entry& e : m_front)
    {
        ts.push_back(e.Ts());
    }
    for (const Entry& e : m_late)
    {
        ts.push_back(e.Ts());
    }
    if (ts.size() < 2)
    {
        return;
    }
    const std::size_t k = std::min<std::size_t>(ts.size() - 1, kCrowded / 2);
    std::nth_element(ts.begin(), ts.begin() + k, ts.end());
    const uint64_t first = *std::min_element(ts.begin(), ts.begin() + k);
    const uint64_t width = (ts[k] - first) / k * kAimFront;
    const uint32_t shift = width == 0 ? 0 : uint32_t(63 - __builtin_clzll(width));
    if (shift >= m_shift)
    {
        return;
    }
    // the calendar keeps its span in time (as far as kMaxBuckets and the pending events
    // allow); the next epoch's histogram fits it
    std::size_t nb = m_nb;
    for (uint32_t s = shift; s < m_shift && nb < kMaxBuckets && nb < 4 * m_size; ++s)
    {
        nb *= 2;
    }
    Rebuild(shift, nb);
}

void
BucketScheduler::Rebuild(uint32_t shift, std::size_t nb)
{
    ++m_rebuilds;
    // every pending event, re-bucketed around the current time
    m_scratch.clear();
    m_scratch.insert(m_scratch.end(), m_front.begin(), m_front.end());
    m_scratch.insert(m_scratch.end(), m_late.begin(), m_late.end());
    m_front.clear();
    m_late.clear();
    for (std::size_t w = 0; w < m_bits.size(); ++w)
    {
        for (uint64_t bits = m_bits[w]; bits != 0; bits &= bits - 1)
        {
            TakeBucket((w << 6) | std::size_t(__builtin_ctzll(bits)), m_scratch);
        }
    }
    m_scratch.insert(m_scratch.end(), m_far.begin(), m_far.end());
    m_far.clear();
    m_shift = shift;
    if (nb != m_nb)
    {
        m_nb = nb;
    }
    if (nb != m_buckets.size())
    {
        m_buckets.clear();
        m_buckets.resize(nb);
    }
    m_bits.assign(m_nb / 64, 0);
    m_inBuckets = 0;
    m_cur = m_now >> m_shift; // no event is pending before now, none will be
    for (const Entry& e : m_scratch)
    {
        PlaceInto(e, m_front);
    }
    m_scratch.clear();
    std::sort(m_front.begin(), m_front.end(), Later);
    Refill();
}

bool
BucketScheduler::IsEmpty() const
{
    return m_size == 0;
}

const BucketScheduler::Entry&
BucketScheduler::Next() const
{
    NS_ASSERT(m_size > 0);
    if (m_front.empty())
    {
        // the next event is far: taken now that it is wanted (the order is unchanged)
        const_cast<BucketScheduler*>(this)->Refill(true);
    }
    return m_front.back();
}

Scheduler::Event
BucketScheduler::PeekNext() const
{
    return Next().ToEvent();
}

Scheduler::Event
BucketScheduler::RemoveNext()
{
    const Scheduler::Event ev = PeekNext();
    m_front.pop_back();
    --m_size;
    m_now = ev.key.m_ts;
    if (++m_removed == m_epoch)
    {
        MaybeResize();
    }
    else if (m_crowded)
    {
        Narrow();
    }
    if (m_front.size() < kKeep && m_size > m_front.size())
    {
        Refill();
    }
    if (m_prefetch && m_size >= m_prefetchMin)
    {
        PrefetchAhead();
    }
    return ev;
}

void
BucketScheduler::PrefetchAhead() const
{
    // the next events as the front stands now (events scheduled meanwhile may come first:
    // hints only): the object of the third is prefetched, stage 0 of the second's routine
    // and stage 1 of the next one's run (each reads only what the previous step fetched)
    const std::size_t n = m_front.size();
    if (n >= 3)
    {
        __builtin_prefetch(m_front[n - 3].impl);
    }
    if (n >= 2)
    {
        QuadHeapScheduler::RunPrefetch(m_front[n - 2].impl, 0);
    }
    if (n >= 1)
    {
        QuadHeapScheduler::RunPrefetch(m_front[n - 1].impl, 1);
    }
}

void
BucketScheduler::PrefetchBefore(uint64_t endTs, std::size_t maxEvents)
{
    m_ahead.clear();
    if (!m_prefetch || endTs == 0)
    {
        return; // (events that may not be EventImpl objects)
    }
    // the events in time order as far as the containers keep it, so that a cap keeps the
    // earliest: the front (latest first, so backwards), the rest of the current bucket,
    // the calendar's buckets up to endTs's, the far heap if its earliest is before endTs
    const auto take = [this, endTs, maxEvents](const Entry& e) {
        if (e.Ts() < endTs && m_ahead.size() < maxEvents)
        {
            m_ahead.push_back(e.impl);
            __builtin_prefetch(e.impl);
        }
    };
    for (auto it = m_front.rbegin(); it != m_front.rend(); ++it)
    {
        take(*it);
    }
    for (const Entry& e : m_late)
    {
        take(e);
    }
    const uint64_t last = (endTs - 1) >> m_shift; // bucket number of endTs - 1
    if (m_inBuckets > 0 && last > m_cur)
    {
        // slots of bucket numbers m_cur + 1 .. last, a word of the bitmap at a time (m_nb is
        // a multiple of 64: no word straddles the calendar's end)
        const std::size_t mask = m_nb - 1;
        std::size_t slot = std::size_t(m_cur + 1) & mask;
        std::size_t left = std::size_t(std::min<uint64_t>(last - m_cur, m_nb));
        while (left > 0 && m_ahead.size() < maxEvents)
        {
            const std::size_t bit = slot & 63;
            const std::size_t n = std::min<std::size_t>(64 - bit, left);
            uint64_t bits = m_bits[slot >> 6] >> bit;
            if (n < 64)
            {
                bits &= (uint64_t(1) << n) - 1;
            }
            for (; bits != 0; bits &= bits - 1)
            {
                for (const Entry& e : m_buckets[slot + std::size_t(__builtin_ctzll(bits))])
                {
                    take(e);
                }
            }
            left -= n;
            slot = (slot + n) & mask;
        }
    }
    if (!m_far.empty() && m_far.front().Ts() < endTs)
    {
        for (const Entry& e : m_far) // (a calendar shorter than the window)
        {
            take(e);
        }
    }
    for (std::size_t s = 0; s < QuadHeapScheduler::kWindowStages; ++s)
    {
        for (const EventImpl* e : m_ahead)
        {
            QuadHeapScheduler::RunPrefetch(e, s);
        }
    }
}

void
BucketScheduler::Remove(const Scheduler::Event& ev)
{
    const uint64_t b = ev.key.m_ts >> m_shift;
    const uint32_t uid = ev.key.m_uid;
    const auto same = [uid](const Entry& e) { return e.uid == uid; };
    if (b <= m_cur)
    {
        const auto it = std::find_if(m_front.begin(), m_front.end(), same);
        if (it != m_front.end())
        {
            m_front.erase(it);
        }
        else
        {
            const auto lt = std::find_if(m_late.begin(), m_late.end(), same);
            NS_ASSERT_MSG(lt != m_late.end(), "BucketScheduler::Remove: event not pending");
            if (lt == m_late.end())
            {
                return;
            }
            *lt = m_late.back();
            m_late.pop_back();
        }
    }
    else if (b - m_cur <= m_nb)
    {
        const std::size_t slot = std::size_t(b) & (m_nb - 1);
        std::vector<Entry>& v = m_buckets[slot];
        const auto it = std::find_if(v.begin(), v.end(), same);
        NS_ASSERT_MSG(it != v.end(), "BucketScheduler::Remove: event not pending");
        if (it == v.end())
        {
            return;
        }
        *it = v.back();
        v.pop_back();
        if (v.empty())
        {
            m_bits[slot >> 6] &= ~(uint64_t(1) << (slot & 63));
        }
        --m_inBuckets;
    }
    else
    {
        const auto it = std::find_if(m_far.begin(), m_far.end(), same);
        NS_ASSERT_MSG(it != m_far.end(), "BucketScheduler::Remove: event not pending");
        if (it == m_far.end())
        {
            return;
        }
        *it = m_far.back();
        m_far.pop_back();
        std::make_heap(m_far.begin(), m_far.end(), Later);
    }
    --m_size;
    if (m_front.size() < kKeep && m_size > m_front.size())
    {
        Refill();
    }
}

bool
BucketScheduler::IsPendingAt(uint64_t ts, uint32_t uid) const
{
    const uint64_t b = ts >> m_shift;
    const auto same = [uid](const Entry& e) { return e.uid == uid; };
    if (b <= m_cur)
    {
        // latest first: the events of ts sit together near the end
        for (std::size_t j = m_front.size(); j > 0; --j)
        {
            const Entry& e = m_front[j - 1];
            if (e.Ts() > ts)
            {
                break;
            }
            if (e.uid == uid)
            {
                return true;
            }
        }
        return std::find_if(m_late.begin(), m_late.end(), same) != m_late.end();
    }
    if (b - m_cur <= m_nb)
    {
        const std::vector<Entry>& v = m_buckets[std::size_t(b) & (m_nb - 1)];
        return std::find_if(v.begin(), v.end(), same) != v.end();
    }
    return std::find_if(m_far.begin(), m_far.end(), same) != m_far.end();
}

} // namespace astra
} // namespace ns3
