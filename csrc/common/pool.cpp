#include "common/pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#if !defined(_WIN32)
#include <pthread.h>
#endif

namespace axisops {
namespace {

struct Job {
    TaskRef body;
    int64_t tasks;
    int wanted;                     // workers that may join (threads - 1)
    std::atomic<int64_t> next{0};  // the next task to take
    int joined = 0;                 // workers that joined (under the pool's lock)
    int active = 0;                 // workers still inside (under the pool's lock)
    std::exception_ptr error;       // the first task's exception (under the pool's lock)
    std::atomic<bool> failed{false};

    Job(TaskRef b, int64_t t, int w) : body(b), tasks(t), wanted(w) {}
};

// Every field lives behind one pointer so that a forked child can start afresh: the
// parent's workers do not exist in the child, and its lock may have been held at the fork.
struct State {
    std::mutex lock;
    std::condition_variable work;  // a job was posted
    std::condition_variable left;  // a worker left a job
    std::vector<Job*> jobs;        // jobs that may still take workers
    int workers = 0;               // started worker threads
    std::atomic<uint64_t> posted{0};  // jobs posted so far (written under the lock)
};

// How long a worker that found no job watches for the next before it sleeps. A call's
// kernels often take well under a millisecond, and waking a sleeping thread costs tens of
// microseconds on a virtual machine: a worker woken for every call of a loop joined its
// job late and the caller did most of the work (a MoE router's top-2 of (8192, 64) on an
// AMD EPYC VM, 2 threads: 0.13-0.14 ms a call, 0.08-0.09 with the watch). OpenMP runtimes
// keep their threads awake far longer (GNU's spin count, LLVM's 200 ms blocktime).
std::atomic<int64_t> watch_us{200};
std::atomic<int64_t> joined_awake{0};  // jobs workers joined while watching

// Returns once a job is posted after `seen` or watch_us have passed (without the lock; a
// new setting applies to a watch already under way).
void watch_for_work(const State& s, uint64_t seen) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0;; ++i) {
        if (s.posted.load(std::memory_order_acquire) != seen) return;
        if (i % 64 == 0 && std::chrono::steady_clock::now() - start >=
                               std::chrono::microseconds(watch_us.load(std::memory_order_relaxed)))
            return;
        std::this_thread::yield();
    }
}

State* state = new State();  // never freed: workers may outlive static destruction
std::atomic<int64_t> jobs_run{0};  // calls that ran on more than one thread

// Takes tasks of `job` until none is left; records the first exception.
void work_on(Job& job) {
    for (;;) {
        const int64_t t = job.next.fetch_add(1, std::memory_order_relaxed);
        if (t >= job.tasks) return;
        if (job.failed.load(std::memory_order_relaxed)) continue;  // skip, but claim
        try {
            job.body(t);
        } catch (...) {
            std::lock_guard<std::mutex> hold(state->lock);
            if (!job.error) job.error = std::current_exception();
            job.failed.store(true, std::memory_order_relaxed);
        }
    }
}

Job* find_job(State& s) {
    for (Job* job : s.jobs)
        if (job->joined < job->wanted && job->next.load(std::memory_order_relaxed) < job->tasks)
            return job;
    return nullptr;
}

void worker_main(State* s) {
    std::unique_lock<std::mutex> hold(s->lock);
    bool watched = false;  // since the last job: the next wait sleeps
    bool awake = false;    // the job found next was seen while watching
    for (;;) {
        Job* job = find_job(*s);
        if (!job) {
            if (watched) {
                s->work.wait(hold);
                awake = false;
            } else {  // then looks again under the lock, so no post is missed
                const uint64_t seen = s->posted.load(std::memory_order_relaxed);
                hold.unlock();
                watch_for_work(*s, seen);
                hold.lock();
                watched = awake = true;
            }
            continue;
        }
        if (awake) joined_awake.fetch_add(1, std::memory_order_relaxed);
        watched = awake = false;
        ++job->joined;
        ++job->active;
        hold.unlock();
        work_on(*job);
        hold.lock();
        if (--job->active == 0) s->left.notify_all();
    }
}

void start_workers(State& s, int count) {
    while (s.workers < count) {
        std::thread(worker_main, &s).detach();
        ++s.workers;
    }
}

#if !defined(_WIN32)
void before_fork() { state->lock.lock(); }
void after_fork_parent() { state->lock.unlock(); }
void after_fork_child() {
    // The parent's State is left as it is (its lock is held, its workers gone): leaked.
    state = new State();
}
[[maybe_unused]] const int fork_handlers = pthread_atfork(before_fork, after_fork_parent, after_fork_child);
#endif

}  // namespace

void parallel_for(int64_t tasks, int threads, TaskRef body) {
    if (tasks <= 0) return;
    const int helpers = int(std::min<int64_t>(threads, tasks)) - 1;
    if (helpers <= 0) {
        for (int64_t t = 0; t < tasks; ++t) body(t);
        return;
    }
    jobs_run.fetch_add(1, std::memory_order_relaxed);
    Job job(body, tasks, helpers);
    State& s = *state;
    {
        std::lock_guard<std::mutex> hold(s.lock);
        start_workers(s, helpers);
        s.jobs.push_back(&job);
        s.posted.fetch_add(1, std::memory_order_release);
    }
    if (helpers == 1) s.work.notify_one();
    else s.work.notify_all();
    work_on(job);
    {
        std::unique_lock<std::mutex> hold(s.lock);
        for (size_t i = 0; i < s.jobs.size(); ++i) {
            if (s.jobs[i] == &job) {
                s.jobs.erase(s.jobs.begin() + std::ptrdiff_t(i));
                break;
            }
        }
        s.left.wait(hold, [&] { return job.active == 0; });
    }
    if (job.error) std::rethrow_exception(job.error);
}

int64_t pool_jobs() { return jobs_run.load(std::memory_order_relaxed); }

int64_t pool_joined_awake() { return joined_awake.load(std::memory_order_relaxed); }

int64_t set_pool_watch(int64_t microseconds) {
    return watch_us.exchange(std::max<int64_t>(0, microseconds), std::memory_order_relaxed);
}

int pool_workers() {
    std::lock_guard<std::mutex> hold(state->lock);
    return state->workers;
}

}  // namespace axisops
