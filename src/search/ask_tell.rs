//! Runs a strategy written as a sequential `async` procedure as a [`Searcher`].
//!
//! Published strategies (Kernel Tuner's, scipy's optimisers) are loops that call a cost function
//! and use its value at once, while the tuning loop asks a searcher for one test at a time and
//! reports the result later. Writing the strategy as an `async` procedure that awaits each
//! evaluation bridges the two without turning every algorithm into a hand-made state machine: the
//! procedure is polled until it awaits a configuration never measured before, which becomes the
//! next test; the measurement resumes it.
//!
//! Like Kernel Tuner's cache, a configuration measured before is answered at once and costs no
//! test, so a strategy may revisit points freely.

use super::{Request, Searcher};
use crate::backend::Measurement;
use crate::space::ConfigId;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Free evaluations in a row after which a strategy is taken to be stuck on known points.
const MAX_FREE_CALLS: u64 = 1_000_000;

/// The run is over: every configuration is measured, or the strategy keeps revisiting known
/// points without asking for a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop;

#[derive(Default)]
struct Shared {
    size: usize,
    measured: RefCell<HashMap<ConfigId, Option<f64>>>,
    asked: Cell<Option<ConfigId>>,
    answer: Cell<Option<Option<f64>>>,
    free_calls: Cell<u64>,
}

/// The cost function a strategy awaits: runtimes of configurations, measured once each.
#[derive(Clone)]
pub struct Evaluator {
    shared: Rc<Shared>,
}

impl Evaluator {
    /// Runtime of `config` in µs (`None`: the configuration failed). A configuration not measured
    /// before suspends the strategy until the test has been made.
    pub async fn runtime(&self, config: ConfigId) -> Result<Option<f64>, Stop> {
        let s = &self.shared;
        if let Some(&known) = s.measured.borrow().get(&config) {
            s.free_calls.set(s.free_calls.get() + 1);
            return if s.free_calls.get() > MAX_FREE_CALLS {
                Err(Stop)
            } else {
                Ok(known)
            };
        }
        s.free_calls.set(0);
        Ok(Ask {
            shared: s.clone(),
            config,
            asked: false,
        }
        .await)
    }

    /// Whether every configuration of the space has been measured.
    pub fn all_measured(&self) -> bool {
        self.shared.measured.borrow().len() >= self.shared.size
    }

    /// `Err(Stop)` once every configuration has been measured: strategies call it before
    /// starting over, so that a restart on a fully explored space ends the run.
    pub fn check_open(&self) -> Result<(), Stop> {
        if self.all_measured() {
            Err(Stop)
        } else {
            Ok(())
        }
    }
}

struct Ask {
    shared: Rc<Shared>,
    config: ConfigId,
    asked: bool,
}

impl Future for Ask {
    type Output = Option<f64>;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<f64>> {
        if self.asked {
            if let Some(answer) = self.shared.answer.take() {
                return Poll::Ready(answer);
            }
        }
        self.asked = true;
        self.shared.asked.set(Some(self.config));
        Poll::Pending
    }
}

/// A [`Searcher`] driving a strategy procedure; it never profiles.
pub struct AskTell {
    shared: Rc<Shared>,
    task: Option<Pin<Box<dyn Future<Output = ()>>>>,
}

impl AskTell {
    /// Starts `strategy` on a space of `size` configurations; the procedure ends the run by
    /// returning (it gets `Err(Stop)` from the evaluator once nothing is left to measure).
    pub fn new<F, Fut>(size: usize, strategy: F) -> AskTell
    where
        F: FnOnce(Evaluator) -> Fut,
        Fut: Future<Output = ()> + 'static,
    {
        let shared = Rc::new(Shared {
            size,
            ..Shared::default()
        });
        let evaluator = Evaluator {
            shared: shared.clone(),
        };
        AskTell {
            shared,
            task: Some(Box::pin(strategy(evaluator))),
        }
    }
}

impl Searcher for AskTell {
    fn next(&mut self) -> Option<Request> {
        let task = self.task.as_mut()?;
        let mut cx = Context::from_waker(Waker::noop());
        match task.as_mut().poll(&mut cx) {
            Poll::Ready(()) => {
                self.task = None;
                None
            }
            Poll::Pending => self.shared.asked.take().map(|config| Request {
                config,
                profile: false,
            }),
        }
    }

    fn observe(&mut self, request: Request, outcome: &Measurement) {
        self.shared
            .measured
            .borrow_mut()
            .insert(request.config, outcome.runtime_us);
        self.shared.answer.set(Some(outcome.runtime_us));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(runtime: f64) -> Measurement {
        Measurement {
            runtime_us: Some(runtime),
            counters: None,
            failure: None,
            cost_s: 0.0,
        }
    }

    #[test]
    fn only_new_configurations_become_tests() {
        // Visits 0, 1, 0, 2, 1 and stops: the repeats are served from the cache.
        let mut s = AskTell::new(3, |eval| async move {
            let mut sum = 0.0;
            for id in [0, 1, 0, 2, 1] {
                sum += eval.runtime(id).await.unwrap().unwrap();
            }
            assert_eq!(sum, 10.0 + 11.0 + 10.0 + 12.0 + 11.0);
        });
        let mut tested = Vec::new();
        while let Some(r) = s.next() {
            tested.push(r.config);
            s.observe(r, &measured(10.0 + r.config as f64));
        }
        assert_eq!(tested, vec![0, 1, 2]);
    }

    #[test]
    fn a_fully_measured_space_stops_a_restarting_strategy() {
        let mut s = AskTell::new(2, |eval| async move {
            while eval.check_open().is_ok() {
                let _ = eval.runtime(0).await;
                let _ = eval.runtime(1).await;
            }
        });
        let mut tests = 0;
        while let Some(r) = s.next() {
            tests += 1;
            s.observe(r, &measured(1.0));
        }
        assert_eq!(tests, 2);
    }
}
