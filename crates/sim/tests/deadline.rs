//! A deadline stops a run inside the event loop and says how far it got; without one the
//! run is the same as `simulate`'s.

use std::time::{Duration, Instant};

use liquid_sim::{
    simulate, simulate_controlled, Control, Link, Message, Options, Plan, Platform, SimError, Step,
    Stopped, Transport,
};

/// `n` steps one after another, each one message of 1 MB on a 1 GB/s link: step k ends
/// at (k + 1) ms.
fn chain(n: usize) -> (Platform, Plan) {
    let platform = Platform::new(vec![Link {
        name: "l0".into(),
        bandwidth: 1e9,
        latency: 0.0,
    }])
    .expect("valid platform");
    let steps = (0..n)
        .map(|k| Step {
            after: if k == 0 { vec![] } else { vec![k - 1] },
            messages: vec![Message {
                route: vec![0],
                bytes: 1e6,
                transfer: None,
            }],
            ..Step::default()
        })
        .collect();
    (platform, Plan { steps })
}

fn run(n: usize, control: &Control<'_>) -> Result<liquid_sim::Run, SimError> {
    let (platform, plan) = chain(n);
    let opts = Options::default();
    simulate_controlled(&platform, &plan, &opts, &Transport::default(), control)
}

#[test]
fn without_a_deadline_the_run_is_simulate_s() {
    let (platform, plan) = chain(300);
    let a = simulate(&platform, &plan, &Options::default()).expect("runs");
    let b = run(300, &Control::default()).expect("runs");
    assert_eq!(a.makespan, b.makespan);
    assert_eq!(a.events, b.events);
    assert!((a.makespan - 0.3).abs() < 1e-12, "{}", a.makespan);
}

#[test]
fn a_deadline_already_passed_stops_before_the_first_event() {
    let control = Control {
        deadline: Some(Instant::now()),
        ..Control::default()
    };
    match run(10, &control) {
        Err(SimError::TimeLimit(Stopped {
            simulated_s,
            steps_done,
            steps,
            messages_done,
            messages,
        })) => {
            assert_eq!(simulated_s, 0.0);
            assert_eq!((steps_done, steps), (0, 10));
            assert_eq!((messages_done, messages), (0, 10));
        }
        other => panic!("{other:?}"),
    }
}

/// The deadline passes while the run is under way (the first progress report waits for
/// it): the run stops at a later check, with the steps done by then, at the instant the
/// last of them ended.
#[test]
fn a_deadline_passed_mid_run_stops_at_a_check_with_what_was_done() {
    let n = 5000;
    let deadline = Instant::now() + Duration::from_millis(50);
    let wait = |_: f64| {
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    let control = Control {
        deadline: Some(deadline),
        progress: Some(&wait),
        ..Control::default()
    };
    match run(n, &control) {
        Err(SimError::TimeLimit(Stopped {
            simulated_s,
            steps_done,
            steps,
            messages_done,
            messages,
        })) => {
            assert!(steps_done > 0 && steps_done < n, "{steps_done}");
            assert_eq!(steps, n);
            assert_eq!((messages_done, messages), (steps_done, n));
            // Step k ends at (k + 1) ms: the run stood where the last step done ended.
            let last_end = steps_done as f64 * 1e-3;
            assert!(
                (simulated_s - last_end).abs() < 1e-9,
                "{simulated_s} vs {last_end}"
            );
        }
        other => panic!("{other:?}"),
    }
}
